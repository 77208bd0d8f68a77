#!/usr/bin/env python3
"""rocket serve in a real browser: Debian's chromium driven by Playwright.

Covers the demo flow end to end with the keyboard and with the mouse, a banner with buttons, a
conversation resumed after a server restart (and after its flow was edited), flow text rendered as text, and accessibility
(live region, labels, focus, keyboard reach, WCAG AA contrast) and layout checks (boxes, order,
visibility; no pixel goldens). Screenshots of each surface go to .build/browser-artifacts/.

Run from the package root after `swift build`: python3 Tests/Browser/browser_test.py
Needs `chromium` (Debian) and `pip install playwright` (no browser download).
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.request

import first_bubble

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROCKET = os.environ.get("ROCKET_BIN", os.path.join(ROOT, ".build", "debug", "rocket"))
FLOWS = os.path.join(ROOT, "Tests", "Browser", "flows")
ARTIFACTS = os.path.join(ROOT, ".build", "browser-artifacts")
TIMEOUT = 15_000  # ms for any one expectation; generous so machine load never decides a result

try:
    from playwright.sync_api import sync_playwright
except ImportError:
    sys.exit("browser tests: Playwright is missing: pip install playwright (Debian's chromium is used; no browser download)")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if not CHROMIUM:
    sys.exit("browser tests: chromium is missing: apt-get install chromium")
if not os.access(ROCKET, os.X_OK):
    sys.exit(f"browser tests: {ROCKET} is missing: run swift build first")


# The key the tests' "app server" calls with (a site's back end: Authorization: Bearer).
SITE_KEY = "browser-test-site-key-0123456789"


class Server:
    """A `rocket serve` process; its URL is the first line it prints."""

    def __init__(self, store, flows=None, port=0):
        keys = os.path.join(os.path.dirname(store), "keys")
        with open(keys, "w") as f:
            f.write("# the browser tests' site key\n" + SITE_KEY + "\n")
        args = [ROCKET, "serve", "--port", str(port), "--store", store, "--api-key-file", keys]
        if flows:
            args += ["--flows", flows]
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("http://"):
            raise RuntimeError("rocket serve did not start: " + line + self.proc.stderr.read())
        self.url = line
        self.port = int(line.rsplit(":", 1)[1].strip("/"))

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=20)
        if code != 0:
            raise AssertionError(f"rocket serve exited {code} after SIGTERM")


def luminance(rgb):
    def channel(c):
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b):
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


AUDIT_JS = """
() => {
  const out = {liveRegion: false, unlabeled: [], texts: [], unreachable: []};
  const log = document.querySelector('.rk-log');
  out.liveRegion = !!log && log.getAttribute('role') === 'log' && log.getAttribute('aria-live') === 'polite';
  for (const input of document.querySelectorAll('.rk input')) {
    const label = input.id && document.querySelector('label[for="' + input.id + '"]');
    if (!label || !label.textContent.trim()) out.unlabeled.push(input.outerHTML.slice(0, 80));
  }
  for (const b of document.querySelectorAll('.rk button:not([disabled])')) {
    if (b.tabIndex < 0 || b.offsetParent === null) out.unreachable.push(b.textContent);
  }
  const rgb = s => (s.match(/[0-9.]+/g) || []).map(Number);
  const background = el => {
    for (let e = el; e; e = e.parentElement) {
      const c = getComputedStyle(e).backgroundColor, v = rgb(c);
      if (v.length >= 3 && (v.length < 4 || v[3] > 0.5)) return v.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const sel = '.rk-text, p.rk-bubble, label.rk-bubble, .rk-mine, .rk-button:not([disabled]), .rk-pressed, .rk-name, .rk-hint, .rk-error, .rk-status, .rk-close:not([disabled]), .rk-banner-title, .rk-banner-subtitle, .rk-banner-button';
  for (const el of document.querySelectorAll(sel)) {
    if (!el.textContent.trim() || el.offsetParent === null && getComputedStyle(el).position !== 'fixed') continue;
    const cs = getComputedStyle(el);
    out.texts.push({text: el.textContent.slice(0, 30), fg: rgb(cs.color).slice(0, 3), bg: background(el),
                    size: parseFloat(cs.fontSize), weight: parseInt(cs.fontWeight, 10)});
  }
  // An empty field's hint says what it takes (the bounds of a number): it is read as text is.
  for (const el of document.querySelectorAll('.rk-input')) {
    if (!el.placeholder || el.value || el.offsetParent === null) continue;
    const cs = getComputedStyle(el), ph = getComputedStyle(el, '::placeholder');
    out.texts.push({text: 'placeholder ' + el.placeholder.slice(0, 20), fg: rgb(ph.color).slice(0, 3), bg: background(el),
                    size: parseFloat(cs.fontSize), weight: parseInt(cs.fontWeight, 10)});
  }
  return out;
}
"""

LAYOUT_JS = """
() => {
  const frame = document.querySelector('.rk-frame').getBoundingClientRect();
  return [...document.querySelectorAll('.rk-log > .rk-item')].map(li => {
    const r = li.getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height,
            frameLeft: frame.left, frameRight: frame.right, visible: r.height > 0 && getComputedStyle(li).visibility !== 'hidden'};
  });
}
"""


def audit(page, where):
    """Accessibility and layout expectations of the current screen (once entrance animations end)."""
    page.wait_for_function(
        "() => document.getAnimations().every(a => a.effect.getComputedTiming().iterations === Infinity || a.playState !== 'running')",
        timeout=TIMEOUT)
    a = page.evaluate(AUDIT_JS)
    assert a["liveRegion"], f"{where}: the transcript is not an ARIA live region"
    assert not a["unlabeled"], f"{where}: inputs without a label: {a['unlabeled']}"
    assert not a["unreachable"], f"{where}: controls the keyboard cannot reach: {a['unreachable']}"
    for t in a["texts"]:
        large = t["size"] >= 24 or (t["size"] >= 18.66 and t["weight"] >= 700)
        need = 3 if large else 4.5
        ratio = contrast(t["fg"], t["bg"])
        assert ratio >= need, f"{where}: contrast {ratio:.2f} < {need} for {t['text']!r} ({t['fg']} on {t['bg']})"
    boxes = page.evaluate(LAYOUT_JS)
    for i, b in enumerate(boxes):
        assert b["visible"], f"{where}: item {i} is not visible"
        assert b["left"] >= b["frameLeft"] - 1 and b["right"] <= b["frameRight"] + 1, f"{where}: item {i} overflows the frame: {b}"
        if i:
            assert b["top"] >= boxes[i - 1]["bottom"] - 1, f"{where}: item {i} is not below item {i - 1}"


def shot(page, name):
    """A screenshot once the page's finite animations have ended (a bubble fading in was caught
    half transparent); looping ones (the typing dots) are not waited for."""
    try:
        page.wait_for_function("""() => document.getAnimations().every(a => a.playState !== 'running'
            || a.effect?.getComputedTiming().iterations === Infinity)""", timeout=3000)
    except Exception:
        pass  # a screenshot of what is there is still worth having
    page.screenshot(path=os.path.join(ARTIFACTS, name + ".png"), full_page=True)


def focused_text(page):
    return page.evaluate("() => document.activeElement ? (document.activeElement.textContent || document.activeElement.id || '') : ''")


def newest(page):
    return page.locator(".rk-log > .rk-item").last


def demo_keyboard(browser, server, timings):
    context = browser.new_context(reduced_motion="reduce", viewport={"width": 900, "height": 900})
    page = context.new_page()
    # What each intent names of the view the page holds (Rocket-Settled).
    named = []
    page.on("request", lambda r: named.append(r.headers.get("rocket-settled")) if r.url.endswith("/intents") else None)
    # And what the page names when it opens the conversation's event stream.
    opened = []
    page.on("request", lambda r: opened.append(r.headers.get("rocket-settled")) if "/v1/conversations/" in r.url and r.url.endswith("/events") else None)
    # When the first bubble is attached (navigation start is 0).
    timings["first_bubble_ms"] = first_bubble.open_timed(page, server.url + "play/demo", TIMEOUT)
    # The banner of the demo flow is announced as a status and shown on top.
    page.wait_for_selector(".rk-banner", timeout=TIMEOUT)
    shot(page, "demo-start")
    page.get_by_text("Hi! I'm Rocket").wait_for(timeout=TIMEOUT)
    audit(page, "demo: intro")
    # Focus moves to each new interactive block; Enter activates it.
    page.wait_for_function("() => document.activeElement && document.activeElement.closest('.rk-text') === null && document.activeElement.classList.contains('rk-bubble')", timeout=TIMEOUT)
    assert "Hi! I'm Rocket" in focused_text(page), focused_text(page)
    page.keyboard.press("Enter")
    page.get_by_text("Image blocks show a picture").wait_for(timeout=TIMEOUT)
    page.wait_for_function("() => document.activeElement && document.activeElement.textContent.includes('Image blocks')", timeout=TIMEOUT)
    img = page.locator(".rk-log img.rk-img-round")
    assert img.count() == 1 and img.first.bounding_box()["width"] > 0, "the image block shows its picture"
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement && document.activeElement.textContent === 'Sure'", timeout=TIMEOUT)
    audit(page, "demo: double button")
    page.keyboard.press("Tab")
    assert focused_text(page) == "Not now", "Tab reaches the other button"
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement && document.activeElement.tagName === 'INPUT'", timeout=TIMEOUT)
    page.keyboard.type("12")
    page.keyboard.press("Enter")
    err = page.locator(".rk-error")
    err.wait_for(timeout=TIMEOUT)
    assert err.text_content() == "No digits, please"
    assert page.locator("input[aria-invalid=true]").count() == 1
    shot(page, "demo-validation")
    audit(page, "demo: validation message")
    page.keyboard.press("Control+A")
    page.keyboard.type("Ada")
    page.keyboard.press("Enter")
    page.get_by_text("Countess Ada! Welcome back.").wait_for(timeout=TIMEOUT)
    page.wait_for_function("() => document.activeElement && document.activeElement.textContent.includes('Countess')", timeout=TIMEOUT)
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement && document.activeElement.type === 'password'", timeout=TIMEOUT)
    page.keyboard.type("1234")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement && document.activeElement.textContent === 'Enable notifications'", timeout=TIMEOUT)
    assert "1234" not in page.locator(".rk-log").inner_text(), "the PIN is never shown"
    page.keyboard.press("Enter")
    # The choice block: focus on its first option; Tab moves to the next, Enter chooses it.
    page.wait_for_function("() => document.activeElement && document.activeElement.textContent === 'Conversations'", timeout=TIMEOUT)
    audit(page, "demo: choice")
    page.keyboard.press("Tab")
    page.wait_for_function("() => document.activeElement && document.activeElement.textContent === 'Banners'", timeout=TIMEOUT)
    page.keyboard.press("Enter")
    # The rating block: a radio group; arrows choose, the Done button answers.
    page.wait_for_function("() => document.activeElement && document.activeElement.type === 'radio'", timeout=TIMEOUT)
    group = page.get_by_role("group", name="Rating blocks take a number. How is the tour so far?")
    assert group.get_by_role("radio").count() == 5
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.locator(".rk-rating input:checked").get_attribute("value") == "4"
    shot(page, "demo-rating")
    audit(page, "demo: rating")
    page.keyboard.press("Tab")
    assert focused_text(page) == "Done"
    page.keyboard.press("Enter")
    page.get_by_text("4 / 5").wait_for(timeout=TIMEOUT)
    page.wait_for_function("() => document.activeElement && document.activeElement.textContent.includes('All set, Ada')", timeout=TIMEOUT)
    shot(page, "demo-end")
    audit(page, "demo: last block")
    # The page named the view it held with each intent, so answers and stream frames left out
    # what it had: it shows the whole transcript all the same, item for item.
    assert len(named) >= 8 and all(named), named
    # The stream was opened naming the view the start's answer gave, so its first frame left out
    # what the page held.
    assert opened and all(opened), opened
    whole = page.evaluate("""async () => {
      const id = localStorage.getItem('rocket.conversation.demo');
      const r = await fetch('/v1/conversations/' + id, {headers: {'Rocket-Visitor': localStorage.getItem('rocket.token')}});
      return (await r.json()).conversation.transcript;
    }""")
    shown = page.locator(".rk-log > *")
    assert shown.count() == len(whole), (shown.count(), len(whole))
    for k, item in enumerate(whole):
        text = item.get("text") or item.get("title") or ""
        if text and item.get("type") != "reply" and "{{" not in text:
            assert text.split("\n")[0][:20] in shown.nth(k).inner_text(), (k, text, shown.nth(k).inner_text())
    page.keyboard.press("Enter")
    page.get_by_text("The conversation has ended.").wait_for(timeout=TIMEOUT)
    # The tour ends as the terminal's does: the closing alert, its choices loading lazily.
    dialog = page.get_by_role("alertdialog", name="How was the tour?")
    dialog.wait_for(timeout=TIMEOUT)
    dialog.get_by_role("button", name="Loved it").wait_for(timeout=TIMEOUT)
    shot(page, "demo-closing-alert")
    audit_dialog(page)
    page.keyboard.press("Escape")  # the cancel action
    page.wait_for_selector(".rk-dialog", state="detached", timeout=TIMEOUT)
    page.get_by_role("button", name="Start again").wait_for(timeout=TIMEOUT)
    context.close()


def press_before_answer(browser, server):
    """A press on a block the event stream showed before the answer to the last press arrived is
    sent once that answer is in, not lost (the race a fast keyboard user, or a slow network, hits)."""
    context = browser.new_context(reduced_motion="reduce")
    page = context.new_page()
    held = []
    release = []
    # What to say if no request is held (seen once in CI, never again): every request the page
    # made after the route was set, and any error the route met.
    seen, errors = [], []

    def hold(route):
        # The request reaches the server (so the stream shows its result); the answer waits.
        try:
            response = route.fetch()
        except Exception as e:
            errors.append(repr(e))
            raise
        if release:
            route.fulfill(response=response)
        else:
            held.append((route, response))

    page.goto(server.url + "play/demo")
    page.wait_for_function("() => document.activeElement && document.activeElement.textContent.includes(\"Hi! I'm Rocket\")", timeout=TIMEOUT)
    page.route("**/intents", hold)
    page.on("request", lambda r: seen.append(f"{r.method} {r.url}"))
    page.on("requestfailed", lambda r: errors.append(f"{r.method} {r.url}: {r.failure}"))
    page.keyboard.press("Enter")
    # The stream shows the image block and focus moves there while the answer is held.
    page.wait_for_function("() => document.activeElement && document.activeElement.textContent.includes('Image blocks')", timeout=TIMEOUT)
    # The held request's own fetch may end after the stream showed its result: wait for it
    # (the route handler runs while Playwright waits), however loaded the machine is.
    for _ in range(TIMEOUT // 20):
        if held:
            break
        page.wait_for_timeout(20)
    assert len(held) == 1, f"one request held, not {len(held)} (requests: {seen}; errors: {errors})"
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")  # a double press on the same block is still one press
    release.append(True)
    route, response = held.pop()
    route.fulfill(response=response)
    page.wait_for_function("() => document.activeElement && document.activeElement.textContent === 'Sure'", timeout=TIMEOUT)
    page.wait_for_timeout(300)
    assert "Sure" in page.locator(".rk-log").inner_text()
    assert page.locator(".rk-log .rk-mine").count() == 0, "no answer was given twice or skipped ahead"
    context.close()


def demo_mouse(browser, server):
    context = browser.new_context(viewport={"width": 420, "height": 800}, color_scheme="dark")
    page = context.new_page()
    actions = []
    page.expose_function("recordAction", lambda name: actions.append(name))
    page.goto(server.url + "play/demo")
    page.evaluate("() => document.addEventListener('rocket:action', e => window.recordAction(e.detail.name))")
    page.get_by_role("button", name="Hi! I'm Rocket").click(timeout=TIMEOUT)
    # The next block goes on by itself, but not while the pointer rests on the conversation
    # (WCAG 2.2.1): held, it takes a click instead.
    held = page.get_by_role("button", name="This block goes on by itself")
    held.wait_for(timeout=TIMEOUT)
    page.wait_for_timeout(3000)  # longer than its showNextAfter: held, it stays
    assert page.get_by_role("button", name="Image blocks").count() == 0
    held.click()
    page.get_by_role("button", name="Image blocks").click(timeout=TIMEOUT)
    page.get_by_role("button", name="Not now").click(timeout=TIMEOUT)
    page.get_by_role("button", name="No problem").click(timeout=TIMEOUT)
    page.get_by_text("The conversation has ended.").wait_for(timeout=TIMEOUT)
    page.get_by_role("alertdialog", name="How was the tour?").get_by_role("button", name="Loved it").click(timeout=TIMEOUT)
    page.wait_for_selector(".rk-dialog", state="detached", timeout=TIMEOUT)
    # The end stays on the page, with the answers as replies, and leads to a fresh start.
    assert page.locator(".rk-answer", has_text="Not now").count() == 1
    shot(page, "demo-mouse-dark-narrow")
    audit(page, "demo, dark, 420 px")
    assert page.evaluate("() => document.scrollingElement.scrollHeight <= window.innerHeight + 1") or \
        page.locator(".rk-log > .rk-item").count() > 6, "a short conversation does not scroll the page"
    page.get_by_role("button", name="Start again").click()
    page.wait_for_function("() => !document.querySelector('.rk-end')", timeout=TIMEOUT)
    page.get_by_text("Hi! I'm Rocket").wait_for(timeout=TIMEOUT)
    assert page.locator(".rk-answer").count() == 0, "a fresh conversation"
    context.close()
    # The close button, from the mouse, in a fresh conversation.
    context = browser.new_context()
    page = context.new_page()
    page.goto(server.url + "play/demo")
    page.get_by_text("Hi! I'm Rocket").wait_for(timeout=TIMEOUT)
    page.locator(".rk-close").click()
    page.get_by_text("The conversation was closed.").wait_for(timeout=TIMEOUT)
    context.close()


LAUNCHER_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>A shop</title></head>
<body><main><h1>A shop</h1><p>Things to buy.</p><a href="#top">A link on the page</a></main>
<script src="/widget.js" data-flow="FLOW" data-mode="launcher"></script></body></html>"""


INLINE_PAGE = """<!doctype html><html lang="it"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Un negozio</title></head>
<body><main><h1>Un negozio</h1><div id="chat"></div></main>
<script src="/widget.js" data-flow="typed" data-target="#chat" data-lang="LANG"></script></body></html>"""


def page_language(browser, server):
    """data-lang: a site's page in Italian, seen with an English browser, gets its conversation's
    texts in Italian (the server's refusals and the widget's own words); a tag that is none is
    said in the console and the browser's language is used."""
    # The script holds English words; Italian ones are fetched once, beside the start. When they
    # cannot be fetched, the conversation goes on in English words and the console says why.
    for lang, refusal, frame, words_fail in [
        ("it", "Scrivi un numero intero.", "Conversazione", False),
        ("bad lang", "Please type a whole number.", "Conversation", False),
        ("it", "Scrivi un numero intero.", "Conversation", True),
    ]:
        context = browser.new_context(locale="en-US")
        page = context.new_page()
        warnings, fetched = [], []
        page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
        page.on("request", lambda r: fetched.append(r.url) if "/widget/words/" in r.url else None)
        page.route(server.url + "negozio.html", lambda route: route.fulfill(
            status=200, content_type="text/html", body=INLINE_PAGE.replace("LANG", lang)))
        if words_fail:
            page.route(server.url + "widget/words/**", lambda route: route.abort())
        page.goto(server.url + "negozio.html")
        field = page.get_by_label("How old are you?")
        field.fill("abc")
        field.press("Enter")
        page.get_by_text(refusal).wait_for(timeout=TIMEOUT)
        assert page.locator(".rk-frame").get_attribute("aria-label") == frame, page.locator(".rk-frame").get_attribute("aria-label")
        assert any("data-lang" in w for w in warnings) == (lang == "bad lang"), warnings
        assert [u.split("?v=")[0] for u in fetched] == ([server.url + "widget/words/it"] if lang == "it" else []), fetched
        assert all(len(u.split("?v=")[1]) == 10 for u in fetched), "the words are asked for by their version"
        assert any("words in it could not be loaded" in w for w in warnings) == words_fail, warnings
        context.close()
    # A flow read in Arabic (its first language) for a Korean browser: the widget's own words
    # are Korean, marked lang=ko; when they cannot be fetched they are English, marked lang=en.
    for blocked in (False, True):
        context = browser.new_context(locale="ko-KR")
        page = context.new_page()
        body = '<!doctype html><html lang="ko"><head><meta charset="utf-8"><title>Shop</title></head><body><main><h1>Shop</h1><div id="chat"></div></main><script src="/widget.js" data-flow="rtl" data-target="#chat"></script></body></html>'
        page.route(server.url + "ko.html", (lambda b: lambda route: route.fulfill(status=200, content_type="text/html", body=b))(body))
        if blocked:
            page.route(server.url + "widget/words/**", lambda route: route.abort())
        page.goto(server.url + "ko.html")
        hint = page.locator(".rk-hint").first
        hint.wait_for(timeout=TIMEOUT)
        assert page.locator(".rk-frame").get_attribute("lang") == "ar", page.locator(".rk-frame").get_attribute("lang")
        assert hint.get_attribute("lang") == ("en" if blocked else "ko"), (blocked, hint.get_attribute("lang"), hint.text_content())
        assert (hint.text_content() == "Continue") == blocked, hint.text_content()
        context.close()
    # A launcher for a Korean browser names its button in Korean once the words are there.
    korean = json.loads(urllib.request.urlopen(server.url + "widget/words/ko", timeout=10).read())
    context = browser.new_context(locale="ko-KR")
    page = context.new_page()
    page.route(server.url + "shop.html", lambda route: route.fulfill(
        status=200, content_type="text/html", body=LAUNCHER_PAGE.replace("FLOW", "typed")))
    page.goto(server.url + "shop.html")
    page.wait_for_function("(name) => (document.querySelector('.rk-launcher') || {getAttribute() {}}).getAttribute('aria-label') === name",
                           arg=korean["openConversation"], timeout=TIMEOUT)
    assert page.locator(".rk-panel").get_attribute("aria-label") == korean["conversation"]
    context.close()


VARS_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>A shop</title></head>
<body><main><h1>A shop</h1><div id="chat"></div></main>
<script src="/widget.js" data-flow="hello" data-target="#chat" data-vars='VARS'MODE></script></body></html>"""


def data_vars(browser, server):
    """data-vars: the page's JSON object of flow variables reaches the flow, typed (inline and
    in the launcher); one that is not such an object shows nothing and says why in the console;
    a name the flow reads nowhere is said in the console too (the start's unusedVars)."""
    for mode, given, shown in [("", '{"user": "Ada", "plan": "pro", "seats": 5}', "Hi Ada, on the pro plan for 5."),
                               (' data-mode="launcher"', '{"user": "Grace"}', "Hi Grace, on the free plan for 1."),
                               ("", '{"user": "Bo", "paln": "pro"}', "Hi Bo, on the free plan for 1."),
                               ("", '{"user": ["Ada"]}', None)]:
        context = browser.new_context(reduced_motion="reduce")
        page = context.new_page()
        warnings = []
        page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
        body = VARS_PAGE.replace("VARS", given).replace("MODE", mode)
        page.route(server.url + "vars.html", (lambda b: lambda route: route.fulfill(status=200, content_type="text/html", body=b))(body))
        page.goto(server.url + "vars.html")
        if shown is None:
            # The script decides as it runs: once the page has loaded, it has shown nothing.
            page.wait_for_load_state("load")
            page.wait_for_function("() => window.RocketAlert", timeout=TIMEOUT)
            assert page.locator(".rk-frame").count() == 0
            assert any("data-vars" in w for w in warnings), warnings
        else:
            if mode:
                page.locator(".rk-launcher").click()
            page.get_by_text(shown).wait_for(timeout=TIMEOUT)
            if "paln" in given:
                expected = 'RocketAlert: the flow "hello" reads nothing named "paln", so it changes nothing'
                assert any(w.startswith(expected) for w in warnings), warnings
            else:
                assert not warnings, warnings
        context.close()


RTL_PAGE = """<!doctype html><html lang="LANG" dir="DIR"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>RTL</title></head>
<body><main><h1>RTL</h1><div id="chat"></div></main>
<script src="/widget.js" data-flow="rtl" data-target="#chat" data-lang="FLOWLANG"MODE></script></body></html>"""


def rtl_page(context, server, page_lang, flow_lang, launcher=False):
    page = context.new_page()
    body = (RTL_PAGE.replace("FLOWLANG", flow_lang).replace("LANG", page_lang).replace("DIR", "rtl" if page_lang == "ar" else "ltr")
            .replace("MODE", ' data-mode="launcher"' if launcher else ""))
    page.route(server.url + "rtl.html", lambda route: route.fulfill(status=200, content_type="text/html", body=body))
    page.goto(server.url + "rtl.html")
    return page


def right_to_left(browser, server):
    """A flow read in Arabic on an English page: the conversation is marked lang=ar dir=rtl and laid
    out from the right (the flow's bubbles on the right, the visitor's on the left), the widget's
    own words (English: rocket has no Arabic ones) are marked lang=en; on an Arabic page the
    launcher sits in the bottom-left corner; in an English flow a Hebrew reply runs right to left."""
    for scheme, width in (("light", 375), ("dark", 1280)):
        context = browser.new_context(locale="en-US", color_scheme=scheme, viewport={"width": width, "height": 800}, reduced_motion="reduce")
        page = rtl_page(context, server, "en", "ar")
        frame = page.locator(".rk-frame")
        page.locator(".rk-log .rk-bubble").first.wait_for(timeout=TIMEOUT)
        assert page.locator(".rk-hint").first.get_attribute("lang") == "en", "the widget's own hint is marked English"
        page.locator(".rk-log .rk-bubble").first.click()
        page.get_by_text("ما اسمك؟").wait_for(timeout=TIMEOUT)
        assert frame.get_attribute("lang") == "ar" and frame.get_attribute("dir") == "rtl", (frame.get_attribute("lang"), frame.get_attribute("dir"))
        assert page.locator(".rk-status").get_attribute("lang") == "en"
        fbox = frame.bounding_box()
        hello = page.locator(".rk-log .rk-bubble").first.bounding_box()
        assert hello["x"] + hello["width"] > fbox["x"] + fbox["width"] - 40, f"the flow's bubble starts at the right: {hello} in {fbox}"
        field = page.locator(".rk-log .rk-input:not([disabled])")
        field.fill("Ada")
        field.press("Enter")
        page.get_by_text("شكرًا يا Ada.").wait_for(timeout=TIMEOUT)
        mine = page.locator(".rk-log .rk-mine").first.bounding_box()
        assert mine["x"] < fbox["x"] + 40, f"the visitor's reply sits at the left: {mine} in {fbox}"
        page.get_by_text("شكرًا يا Ada.").click()
        page.locator(".rk-end").wait_for(timeout=TIMEOUT)
        assert page.locator(".rk-end").get_attribute("lang") == "en", "the closing line is in English words"
        audit(page, f"right to left ({scheme}, {width} px)")
        shot(page, f"rtl-{scheme}-{width}")
        context.close()
    # An Arabic page: the launcher in the bottom-left corner, its panel opening there.
    context = browser.new_context(locale="ar", viewport={"width": 375, "height": 740}, reduced_motion="reduce")
    page = rtl_page(context, server, "ar", "ar", launcher=True)
    button = page.locator(".rk-launcher")
    button.wait_for(timeout=TIMEOUT)
    box = button.bounding_box()
    assert box["x"] < 40, f"the launcher sits in the bottom-left corner of a right-to-left page: {box}"
    button.click()
    page.locator(".rk-log .rk-bubble").first.wait_for(timeout=TIMEOUT)
    pbox = page.locator(".rk-panel").bounding_box()
    assert pbox["x"] < 40 and pbox["x"] + pbox["width"] <= 375, f"the panel opens on the left: {pbox}"
    shot(page, "rtl-launcher")
    context.close()
    # The flow in English: laid out left to right, and a reply in Hebrew runs right to left.
    context = browser.new_context(locale="en-US")
    page = rtl_page(context, server, "en", "en")
    page.locator(".rk-log .rk-bubble").first.click()
    page.get_by_text("What's your name?").wait_for(timeout=TIMEOUT)
    assert page.locator(".rk-frame").get_attribute("dir") == "ltr"
    field = page.locator(".rk-log .rk-input:not([disabled])")
    field.fill("שלום")
    field.press("Enter")
    page.get_by_text("Thank you, שלום.").wait_for(timeout=TIMEOUT)
    assert page.evaluate("() => getComputedStyle(document.querySelector('.rk-log .rk-mine')).direction") == "rtl"
    context.close()


def open_launcher_page(browser, server, flow="demo", attributes="", init_script=None, **context_options):
    """A site's page (served at the server's origin by Playwright) embedding the launcher of `flow`,
    with more of the script's `attributes` (` data-accent="#e0115f"`) when given, and a script run
    before the page's own (`init_script`)."""
    context = browser.new_context(**context_options)
    if init_script:
        context.add_init_script(init_script)
    page = context.new_page()
    body = LAUNCHER_PAGE.replace("FLOW", flow).replace(' data-mode="launcher"', ' data-mode="launcher"' + attributes)
    page.route(server.url + "shop.html", lambda route: route.fulfill(status=200, content_type="text/html", body=body))
    page.goto(server.url + "shop.html")
    return context, page


# A phone's keyboard, as the page sees it: a visual viewport the test sizes and moves (a headless
# browser has no keyboard), with the events a real one sends.
FAKE_KEYBOARD = """
(() => {
  class FakeViewport extends EventTarget {
    constructor() { super(); this.offsetTop = 0; this.offsetLeft = 0; this.scale = 1; this.pageTop = 0; this.pageLeft = 0; }
    get width() { return window.innerWidth; }
    get height() { return this.covered === undefined ? window.innerHeight : window.innerHeight - this.covered - this.offsetTop; }
  }
  window.visualViewport = new FakeViewport();
  window.__keyboard = (covered, offsetTop, scale) => {
    const v = window.visualViewport;
    v.covered = covered; v.offsetTop = offsetTop || 0; v.scale = scale || 1;
    v.dispatchEvent(new Event("resize"));
  };
})();
"""


def launcher_keyboard(browser, server):
    """The launcher on a phone with its keyboard open: the panel rises above the keyboard and fits
    what is left, so the field being typed in stays in sight; it goes back down when the keyboard
    closes, and a pinch zoom moves nothing."""
    context, page = open_launcher_page(browser, server, "demo", init_script=FAKE_KEYBOARD, viewport={"width": 375, "height": 740})
    assert page.evaluate("() => window.visualViewport instanceof EventTarget && typeof window.__keyboard === 'function'")
    page.locator(".rk-launcher").click()
    for name in ("Hi! I'm Rocket", "This block goes on by itself", "Image blocks", "Sure"):
        page.get_by_role("button", name=name).click(timeout=TIMEOUT)
    field = page.locator(".rk-panel .rk-input:not([disabled])")
    field.wait_for(timeout=TIMEOUT)
    field.focus()
    rect = lambda locator: locator.evaluate("e => { const r = e.getBoundingClientRect(); return [r.top, r.bottom]; }")
    panel = page.locator(".rk-panel")
    assert abs(rect(panel)[1] - (740 - 84)) < 1, rect(panel)
    # A 320 px keyboard: 420 px are left, and everything of the panel is within them.
    page.evaluate("() => window.__keyboard(320, 0)")
    page.wait_for_function("() => getComputedStyle(document.querySelector('.rk-launcher-root')).getPropertyValue('--rk-kb').trim() === '320px'", timeout=TIMEOUT)
    top, bottom = rect(panel)
    assert top >= 0 and bottom <= 420 - 84 + 1, (top, bottom)
    assert rect(field)[1] <= 420, rect(field)
    assert rect(page.locator(".rk-launcher"))[1] <= 420 + 1
    field.fill("Ada")  # still typed into: the panel keeps the focus
    # Safari pans the visible part down to the field: the panel follows what is seen.
    page.evaluate("() => window.__keyboard(200, 120)")
    page.wait_for_function("() => getComputedStyle(document.querySelector('.rk-launcher-root')).getPropertyValue('--rk-kb').trim() === '200px'", timeout=TIMEOUT)
    top, bottom = rect(panel)
    assert top >= 120 and bottom <= 740 - 200 - 84 + 1, (top, bottom)
    # Closed again: back where it was; a zoomed-in page (scale 2) moves nothing.
    for covered, offset, scale in ((None, 0, 1), (300, 0, 2)):
        page.evaluate(f"() => window.__keyboard({'undefined' if covered is None else covered}, {offset}, {scale})")
        page.wait_for_function("() => getComputedStyle(document.querySelector('.rk-launcher-root')).getPropertyValue('--rk-kb').trim() === '0px'", timeout=TIMEOUT)
        assert abs(rect(panel)[1] - (740 - 84)) < 1, rect(panel)
    assert page.evaluate("() => document.activeElement && document.activeElement.classList.contains('rk-input')")
    context.close()


def launcher_position(browser, server):
    """data-position: the launcher and its panel in the corner asked for (left here, clear of a
    site's own button on the right), at both widths; a value it cannot use keeps the page's end
    corner and says why in the console."""
    for width in (375, 1280):
        context, page = open_launcher_page(browser, server, "demo", ' data-position="left"', viewport={"width": width, "height": 740})
        button = page.locator(".rk-launcher")
        button.wait_for(timeout=TIMEOUT)
        left = lambda locator: locator.evaluate("e => Math.round(e.getBoundingClientRect().left)")
        assert left(button) == 16, left(button)
        button.click()
        panel = page.locator(".rk-panel")
        panel.wait_for(state="visible", timeout=TIMEOUT)
        assert left(panel) == 16, left(panel)
        audit(page, f"the launcher on the left ({width} px)")
        context.close()
    messages = []
    context, page = open_launcher_page(browser, server, "demo", ' data-position="top"', viewport={"width": 1280, "height": 740})
    page.on("console", lambda m: messages.append(m.text))
    page.reload()
    button = page.locator(".rk-launcher")
    button.wait_for(timeout=TIMEOUT)
    assert button.evaluate("e => Math.round(innerWidth - e.getBoundingClientRect().right)") == 16
    page.wait_for_timeout(200)
    assert any('data-position must be left or right, not "top"' in m for m in messages), messages
    context.close()


def accent(browser, server):
    """data-accent: the site's colour on the launcher, the buttons and the visitor's bubbles, made
    readable in each scheme (a yellow is darkened on white, and the console says so); a value that
    is no colour keeps the widget's own and says why. --rk-font: the site's typeface."""
    for scheme in ("light", "dark"):
        messages = []
        context, page = open_launcher_page(
            browser, server, "demo", ' data-accent="#ffcc00"', color_scheme=scheme, viewport={"width": 375, "height": 740})
        page.on("console", lambda m: messages.append((m.type, m.text)))
        page.reload()
        button = page.locator(".rk-launcher")
        button.wait_for(timeout=TIMEOUT)
        expected = page.evaluate("() => getComputedStyle(document.querySelector('.rk-launcher-root')).getPropertyValue("
                                 f"'--rk-accent{'-dark' if scheme == 'dark' else ''}').trim()")
        rgb = lambda c: tuple(int(x) for x in c[c.index("(") + 1:c.index(")")].split(",")[:3])
        hexed = lambda t: "#%02x%02x%02x" % t
        assert hexed(rgb(button.evaluate("b => getComputedStyle(b).backgroundColor"))) == expected, expected
        if scheme == "light":
            assert expected != "#ffcc00" and contrast(rgb(button.evaluate("b => getComputedStyle(b).backgroundColor")), (255, 255, 255)) >= 4.5
            assert any(t == "info" and "data-accent #ffcc00 reads below 4.5:1" in text and expected in text for t, text in messages), messages
        else:
            assert expected == "#ffcc00", "a yellow reads on the dark frame as it is"
        button.click()
        # The focus is in the panel, so each block waits for its tap (WCAG 2.2.1), then Sure.
        for name in ("Hi! I'm Rocket", "This block goes on by itself", "Image blocks", "Sure"):
            page.get_by_role("button", name=name).click(timeout=TIMEOUT)
        mine = page.locator(".rk-mine").first
        mine.wait_for(timeout=TIMEOUT)
        assert hexed(rgb(mine.evaluate("e => getComputedStyle(e).backgroundColor"))) == expected
        audit(page, f"the launcher with data-accent ({scheme})")
        shot(page, f"accent-{scheme}-375")
        context.close()
    # The site's typeface: --rk-font on the page is the widget's font, in the panel and inline;
    # without it, the widget's own stack.
    context, page = open_launcher_page(browser, server, "demo", init_script=(
        "document.addEventListener('DOMContentLoaded', () => document.documentElement.style.setProperty('--rk-font', 'Georgia, serif'))"))
    page.locator(".rk-launcher").click(timeout=TIMEOUT)
    bubble = page.locator(".rk-bubble").first
    bubble.wait_for(timeout=TIMEOUT)
    assert bubble.evaluate("e => getComputedStyle(e).fontFamily") == "Georgia, serif"
    assert page.locator(".rk-launcher-root").evaluate("e => getComputedStyle(e).fontFamily") == "Georgia, serif"
    page.evaluate("() => document.documentElement.style.removeProperty('--rk-font')")
    assert bubble.evaluate("e => getComputedStyle(e).fontFamily").startswith("system-ui")
    context.close()
    # From script: mount's accent over the page's, for that conversation alone.
    context, page = open_launcher_page(browser, server, "demo", ' data-accent="#ffcc00"', color_scheme="light")
    page.locator(".rk-launcher").wait_for(timeout=TIMEOUT)
    page.evaluate("""() => { const d = document.createElement('div'); d.id = 'own'; document.body.appendChild(d);
                             RocketAlert.mount(d, 'demo', {accent: '#1f3a93'}); }""")
    page.locator("#own .rk-frame").wait_for(timeout=TIMEOUT)
    own = page.evaluate("() => getComputedStyle(document.getElementById('own')).getPropertyValue('--rk-accent').trim()")
    page_accent = page.evaluate("() => getComputedStyle(document.querySelector('.rk-launcher-root')).getPropertyValue('--rk-accent').trim()")
    assert own == "#1f3a93" and page_accent not in ("", "#1f3a93"), (own, page_accent)
    context.close()
    # No colour: the widget's own blue, and why in the console.
    warnings = []
    context, page = open_launcher_page(browser, server, "demo", ' data-accent="red"')
    page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
    page.reload()
    page.locator(".rk-launcher").wait_for(timeout=TIMEOUT)
    assert page.evaluate("() => getComputedStyle(document.querySelector('.rk-launcher')).backgroundColor") == "rgb(10, 95, 180)"
    assert any("data-accent must be a colour written #RRGGBB; it is not used" in w for w in warnings), warnings
    context.close()


def launcher(browser, server):
    context, page = open_launcher_page(browser, server, viewport={"width": 375, "height": 740})
    button = page.locator(".rk-launcher")
    button.wait_for(timeout=TIMEOUT)
    assert button.get_attribute("aria-expanded") == "false"
    # Bubbles arrive while it is closed: the badge counts them, and the button says so.
    page.wait_for_function("() => !document.querySelector('.rk-badge').classList.contains('rk-hidden')", timeout=TIMEOUT)
    assert "new" in button.get_attribute("aria-label")
    box = button.bounding_box()
    assert box["x"] + box["width"] <= 375 and box["y"] + box["height"] <= 740, f"the launcher sits in the corner: {box}"
    shot(page, "launcher-closed")
    button.click()
    panel = page.locator(".rk-panel")
    assert panel.is_visible() and button.get_attribute("aria-expanded") == "true"
    assert page.locator(".rk-badge").is_hidden()
    page.get_by_text("Hi! I'm Rocket").wait_for(timeout=TIMEOUT)
    pbox = panel.bounding_box()
    assert pbox["x"] >= 0 and pbox["x"] + pbox["width"] <= 375, f"the panel fits the screen: {pbox}"
    assert page.evaluate("() => document.querySelector('.rk-panel').contains(document.activeElement)"), "the focus goes into the panel"
    shot(page, "launcher-open")
    # Esc closes the panel, not the conversation, and the focus goes back to the launcher.
    page.keyboard.press("Escape")
    assert panel.is_hidden()
    assert page.evaluate("() => document.activeElement === document.querySelector('.rk-launcher')")
    button.click()
    assert page.locator(".rk-log > .rk-item").count() > 0, "the conversation is still there"
    context.close()


def banner_and_text(browser, server):
    context = browser.new_context()
    page = context.new_page()
    page.goto(server.url + "play/banner")
    banner = page.locator(".rk-banner")
    banner.wait_for(timeout=TIMEOUT)
    assert banner.locator(".rk-banner-title").text_content() == "Sale today"
    buttons = banner.locator(".rk-banner-button")
    assert buttons.count() == 2 and buttons.nth(0).text_content() == "Shop now"
    page.wait_for_function("() => ['.rk-frame', '.rk-banner'].every(q => document.querySelector(q).getAnimations().every(a => a.playState !== 'running'))", timeout=TIMEOUT)
    box = banner.bounding_box()
    head = page.locator(".rk-head").bounding_box()
    log = page.locator(".rk-log").bounding_box()
    assert box["y"] >= head["y"] + head["height"] - 1 and box["y"] + box["height"] <= log["y"] + 1, \
        f"the banner sits between the header and the conversation, covering neither: {box} {head} {log}"
    icon = banner.locator("img.rk-banner-image")
    icon.wait_for(timeout=TIMEOUT)
    page.wait_for_function("() => { const i = document.querySelector('img.rk-banner-image'); return i && i.complete && i.naturalWidth === 2; }", timeout=TIMEOUT)
    page.get_by_text("Hello there").wait_for(timeout=TIMEOUT)
    shot(page, "banner")
    audit(page, "banner")
    # Flow content is text, never HTML.
    assert page.locator(".rk-log b").count() == 0
    assert "<b>not bold</b>" in page.locator(".rk-log").inner_text()
    avatar = page.locator(".rk-head img.rk-img-round")
    assert avatar.count() == 1 and avatar.evaluate("img => img.complete && img.naturalWidth") == 2, "the avatar loads from the flow folder"
    results = []
    page.expose_function("recordBanner", lambda r: results.append(r))
    page.evaluate("() => document.addEventListener('rocket:banner', e => window.recordBanner(e.detail.result))")
    buttons.nth(0).click()
    page.wait_for_selector(".rk-banner", state="detached", timeout=TIMEOUT)
    assert results == ["button1"], results
    page.get_by_role("button", name="Hello there").click()
    page.get_by_role("group", name="Which colour?").wait_for(timeout=TIMEOUT)
    page.get_by_role("button", name="Blue").click()
    page.get_by_text("Thanks!").wait_for(timeout=TIMEOUT)
    # The chosen option is the visitor's reply now; the options are gone.
    page.locator(".rk-answer", has_text="Blue").wait_for(timeout=TIMEOUT)
    assert page.get_by_role("button", name="Blue", exact=True).count() == 0
    shot(page, "choice")
    context.close()


def post(url, path, body):
    """A call from the site's back end, with its key."""
    req = urllib.request.Request(url.rstrip("/") + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json", "Authorization": "Bearer " + SITE_KEY})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def erase(url, visitor):
    """The site's back end erases a visitor (DELETE /v1/visitors/{id}); what went."""
    req = urllib.request.Request(url.rstrip("/") + "/v1/visitors/" + visitor, method="DELETE",
                                 headers={"Authorization": "Bearer " + SITE_KEY})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())["forgotten"]


def live_alert(browser, server):
    context = browser.new_context()
    page = context.new_page()
    page.goto(server.url + "play/demo")
    page.wait_for_selector(".rk-log > .rk-item", timeout=TIMEOUT)
    assert page.evaluate("() => RocketAlert.visitor()").startswith("anon."), "the page's visitor is the one its token names"
    page.evaluate("""() => {
      window.alertId = null; window.alertResult = undefined;
      document.addEventListener('rocket:alert', e => { window.alertId = e.detail.id; });
      RocketAlert.alert({title: 'Delete this item?', message: 'Checking what you may do…',
                         actions: [{title: 'Loading…', enabled: false}, {title: 'Cancel', style: 'cancel'}]})
        .then(r => { window.alertResult = r; });
    }""")
    page.wait_for_function("() => window.alertId", timeout=TIMEOUT)
    alert_id = page.evaluate("() => window.alertId")
    dialog = page.get_by_role("alertdialog", name="Delete this item?")
    dialog.wait_for(timeout=TIMEOUT)
    page.wait_for_function("() => document.activeElement && document.activeElement.textContent === 'Cancel'", timeout=TIMEOUT)
    assert dialog.get_by_role("button", name="Loading…").is_disabled()
    # The app's server loads the actions: the open dialog changes in place.
    post(server.url, f"/v1/alerts/{alert_id}/mutations",
         {"setActions": [{"title": "Edit"}, {"title": "Delete", "style": "destructive"}, {"title": "Cancel", "style": "cancel"}]})
    post(server.url, f"/v1/alerts/{alert_id}/mutations", {"setMessage": "This cannot be undone."})
    dialog.get_by_role("button", name="Delete").wait_for(timeout=TIMEOUT)
    page.get_by_text("This cannot be undone.").wait_for(timeout=TIMEOUT)
    assert focused_text(page) == "Cancel", "focus stays on the safe action it had: " + focused_text(page)
    # The keyboard stays inside the dialog.
    for _ in range(4):
        page.keyboard.press("Tab")
        assert page.evaluate("() => !!document.activeElement.closest('.rk-dialog')"), "Tab leaves the dialog"
    shot(page, "alert-live")
    audit_dialog(page)
    page.keyboard.press("Escape")
    page.wait_for_function("() => window.alertResult !== undefined", timeout=TIMEOUT)
    assert page.evaluate("() => window.alertResult.title") == "Cancel"
    assert page.locator(".rk-dialog").count() == 0
    # An action sheet, answered with the mouse.
    page.evaluate("""() => { window.alertResult = undefined;
      RocketAlert.alert({title: 'Share', style: 'actionSheet', actions: [{title: 'Cancel', style: 'cancel'}, {title: 'Copy link'}, {title: 'Email'}]})
        .then(r => { window.alertResult = r; }); }""")
    sheet = page.get_by_role("alertdialog", name="Share")
    sheet.wait_for(timeout=TIMEOUT)
    titles = sheet.locator("button").all_text_contents()
    assert titles == ["Copy link", "Email", "Cancel"], f"the sheet puts Cancel last: {titles}"
    box = sheet.bounding_box()
    assert box["y"] + box["height"] > page.viewport_size["height"] * 0.7, f"the sheet sits at the bottom: {box}"
    shot(page, "action-sheet")
    # Chosen while the browser is offline: sent once it is back online.
    context.set_offline(True)
    sheet.get_by_role("button", name="Email").click()
    page.wait_for_timeout(300)
    assert page.evaluate("() => window.alertResult") is None, "answered while offline"
    context.set_offline(False)
    page.wait_for_function("() => window.alertResult !== undefined", timeout=TIMEOUT)
    assert page.evaluate("() => window.alertResult") == {"index": 2, "title": "Email"}
    # The site erases the visitor while an alert is open: the dialog closes as dismissed (nothing
    # in it can be answered any more, and a dialog left open would hold the page), the page's
    # promise gets null, and the focus goes back where it was.
    page.evaluate("""() => { window.alertResult = undefined;
      RocketAlert.alert({title: 'Still there?', actions: [{title: 'Yes'}, {title: 'No', style: 'cancel'}]})
        .then(r => { window.alertResult = r; }); }""")
    page.get_by_role("alertdialog", name="Still there?").wait_for(timeout=TIMEOUT)
    erase(server.url, page.evaluate("() => RocketAlert.visitor()"))
    page.wait_for_function("() => window.alertResult !== undefined", timeout=TIMEOUT)
    assert page.evaluate("() => window.alertResult") is None, "an alert that is gone is answered with nothing"
    assert page.locator(".rk-dialog").count() == 0, "the dialog of an alert that is gone stays open"
    context.close()


def audit_dialog(page):
    a = page.evaluate(AUDIT_JS.replace("'.rk-text, p.rk-bubble", "'.rk-dialog-title, .rk-dialog-message, .rk-dialog-button:not([disabled]), .rk-text, p.rk-bubble"))
    for t in a["texts"]:
        large = t["size"] >= 24 or (t["size"] >= 18.66 and t["weight"] >= 700)
        need = 3 if large else 4.5
        ratio = contrast(t["fg"], t["bg"])
        assert ratio >= need, f"dialog: contrast {ratio:.2f} < {need} for {t['text']!r}"


def resume_after_restart(browser, store):
    server = Server(store, FLOWS)
    context = browser.new_context()
    page = context.new_page()
    page.goto(server.url + "play/resume")
    page.get_by_role("button", name="Step one").click(timeout=TIMEOUT)
    page.get_by_label("Your name?").fill("Grace")
    page.get_by_role("button", name="Send").click()
    page.get_by_text("Hello Grace, step two").wait_for(timeout=TIMEOUT)
    port = server.port
    server.stop()
    server = Server(store, FLOWS, port=port)
    try:
        page.reload()
        page.get_by_text("Hello Grace, step two").wait_for(timeout=TIMEOUT)
        assert page.locator(".rk-log > .rk-item").count() == 4, "the transcript so far is shown again"
        shot(page, "resumed")
        page.get_by_role("button", name="Hello Grace, step two").click(timeout=TIMEOUT)
        page.get_by_role("button", name="Finish").click(timeout=TIMEOUT)
        page.get_by_text("Done").wait_for(timeout=TIMEOUT)
    finally:
        context.close()
        server.stop()


def stream_waits(browser, scratch):
    """A page's event stream dropped by a restart and refused for its address's share of
    streams waits out the refusal's Retry-After (a minute); the browser coming back online
    opens it at once."""
    import socket
    store = os.path.join(scratch, "waits.sqlite")
    server = Server(store, FLOWS)
    context = browser.new_context(reduced_motion="reduce")
    page = context.new_page()
    held = []
    try:
        page.goto(server.url + "play/resume")
        page.get_by_role("button", name="Step one").wait_for(timeout=TIMEOUT)
        page.wait_for_function("() => localStorage.getItem('rocket.conversation.resume') !== null", timeout=TIMEOUT)
        conversation = page.evaluate("() => localStorage.getItem('rocket.conversation.resume')")
        port = server.port
        is_events = lambda r: r.url.endswith("/events")  # noqa: E731
        with page.expect_response(lambda r: is_events(r) and r.status == 429, timeout=TIMEOUT) as refused:
            server.stop()
            server = Server(store, FLOWS, port=port)
            # Before the page tries again (after 1.5–2 s), the site's back end takes every stream
            # its address may hold.
            for _ in range(64):
                s = socket.create_connection(("127.0.0.1", port), timeout=10)
                s.sendall((f"GET /v1/conversations/{conversation}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                           f"Authorization: Bearer {SITE_KEY}\r\nAccept: text/event-stream\r\n\r\n").encode())
                held.append(s)
            for s in held:
                head = s.recv(12)
                assert head == b"HTTP/1.1 200", head
        assert refused.value.headers.get("retry-after") == "60", refused.value.headers
        for s in held:
            s.close()
        held = []
        # The tab shown again keeps the wait the server asked for (no stream request follows).
        asked = []
        page.on("request", lambda r: asked.append(r.url) if is_events(r) else None)
        page.evaluate("() => document.dispatchEvent(new Event('visibilitychange'))")
        page.wait_for_timeout(1000)
        assert not asked, f"the tab shown again did not keep the server's Retry-After: {asked}"
        # Back online: opened at once (the Retry-After would have it wait a minute), and followed.
        with page.expect_response(lambda r: is_events(r) and r.status == 200, timeout=10_000):
            context.set_offline(True)
            context.set_offline(False)
        page.get_by_role("button", name="Step one").click(timeout=TIMEOUT)
        page.get_by_label("Your name?").wait_for(timeout=TIMEOUT)
    finally:
        for s in held:
            s.close()
        context.close()
        server.stop()


def offline_press(browser, server):
    """A press made while the browser is offline is not lost: the page says it is trying again,
    and sends it once the browser is back online; the conversation moves on once."""
    context = browser.new_context(reduced_motion="reduce")
    page = context.new_page()
    try:
        page.goto(server.url + "play/resume")
        step_one = page.get_by_role("button", name="Step one")
        step_one.wait_for(timeout=TIMEOUT)
        context.set_offline(True)
        step_one.click()
        page.get_by_text("The server cannot be reached; trying again").wait_for(timeout=TIMEOUT)
        context.set_offline(False)
        page.get_by_label("Your name?").wait_for(timeout=TIMEOUT)
        page.wait_for_function("() => !document.querySelector('.rk-status').textContent", timeout=TIMEOUT)
        assert page.locator(".rk-log > .rk-item").count() == 2, "one press, one step: " + page.locator(".rk-log").inner_text()
    finally:
        context.close()


EDIT_FIRST = {"version": 1, "start": "a", "blocks": [
    {"id": "a", "type": "text", "text": "First version, one", "next": "b"},
    {"id": "b", "type": "text", "text": "First version, two", "next": "c"},
    {"id": "c", "type": "text", "text": "First version, three"}]}
EDIT_SECOND = {"version": 1, "start": "a", "blocks": [
    {"id": "a", "type": "text", "text": "Second version, one", "next": "b"},
    {"id": "b", "type": "text", "text": "Second version, two"}]}


def edited_flow(browser, scratch):
    """A flow edited while a visitor is in it: after a restart the conversation goes on with the
    version it started with (the store keeps it); one whose version is not kept ends with a line
    saying it cannot go on and a control that starts the flow as it is now. So does one whose
    visitor the site erases while the page is open."""
    import sqlite3
    folder = os.path.join(scratch, "edited")
    os.makedirs(folder)
    store = os.path.join(scratch, "edited.sqlite")
    path = os.path.join(folder, "edit.json")
    with open(path, "w") as f:
        json.dump(EDIT_FIRST, f)
    server = Server(store, folder)
    context = browser.new_context(reduced_motion="reduce")
    page = context.new_page()
    try:
        page.goto(server.url + "play/edit")
        page.get_by_role("button", name="First version, one").click(timeout=TIMEOUT)
        page.get_by_text("First version, two").wait_for(timeout=TIMEOUT)
        port = server.port
        server.stop()
        with open(path, "w") as f:
            json.dump(EDIT_SECOND, f)
        server = Server(store, folder, port=port)
        page.reload()
        page.get_by_role("button", name="First version, two").click(timeout=TIMEOUT)
        page.get_by_text("First version, three").wait_for(timeout=TIMEOUT)
        assert "Second version" not in page.locator(".rk-log").inner_text(), "the conversation went on with its own version"
        # Its version is no longer kept (a store from before versions were kept): the next press
        # cannot go on, and says so.
        page.reload()
        page.get_by_text("First version, three").wait_for(timeout=TIMEOUT)
        server.stop()
        with sqlite3.connect(store) as db:
            db.execute("DELETE FROM server_flow_versions")
        server = Server(store, folder, port=port)
        page.get_by_role("button", name="First version, three").click(timeout=TIMEOUT)
        page.get_by_text("This conversation cannot go on.").wait_for(timeout=TIMEOUT)
        assert page.get_by_role("button", name="First version, three").is_disabled(), "what cannot go on cannot be pressed"
        assert page.locator(".rk-log .rk-hint").count() == 0, "no hint invites a press that cannot go on"
        assert focused_text(page) == "Start again", f"the focus is on Start again, not {focused_text(page)!r}"
        audit(page, "a conversation that cannot go on")
        shot(page, "lost")
        page.get_by_role("button", name="Start again").click(timeout=TIMEOUT)
        page.get_by_text("Second version, one").wait_for(timeout=TIMEOUT)
        assert page.locator(".rk-end").count() == 0, "the closing line went with the new start"
        # The site's back end erases the visitor while the page is open: its event stream ends,
        # and the page says that the conversation cannot go on with no press (it does not try
        # the stream again and again).
        page.wait_for_function("() => localStorage.getItem('rocket.conversation.edit') !== null", timeout=TIMEOUT)
        conversation = page.evaluate("() => localStorage.getItem('rocket.conversation.edit')")
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
            visitor = db.execute("SELECT visitor FROM server_conversations WHERE id = ?", (conversation,)).fetchone()[0]
        streams = []
        page.on("request", lambda r: streams.append(r.url) if r.url.endswith("/events") else None)
        assert erase(server.url, visitor)["conversations"] >= 1
        page.get_by_text("This conversation cannot go on.").wait_for(timeout=TIMEOUT)
        assert page.get_by_role("button", name="Second version, one").is_disabled(), "an erased conversation cannot be pressed"
        page.wait_for_timeout(2500)
        assert len(streams) == 1, f"the stream was opened again {len(streams)} times after it was refused"
    finally:
        context.close()
        server.stop()


def typed_and_checkboxes(browser, server):
    """Typed inputs get the native field (phones show the right keyboard); a wrong or too small
    answer is refused with the reason; a multiple choice is checkboxes and a confirming button."""
    context = browser.new_context(reduced_motion="reduce")
    page = context.new_page()
    # What the page's own script is told when the conversation ends.
    page.add_init_script("document.addEventListener('rocket:dismiss', e => { window.dismissed = e.detail; });")
    page.goto(server.url + "play/typed")
    age = page.get_by_label("How old are you?")
    age.wait_for(timeout=TIMEOUT)
    assert age.get_attribute("type") == "text" and age.get_attribute("inputmode") == "numeric"
    # The empty field says what it takes: the server's hint, the answer's bounds.
    assert age.get_attribute("placeholder") == "18 – 120", age.get_attribute("placeholder")
    audit(page, "typed: number")
    age.fill("12")
    page.keyboard.press("Enter")
    err = page.locator(".rk-error")
    err.wait_for(timeout=TIMEOUT)
    assert err.text_content() == "The least accepted is 18.", err.text_content()
    age.fill("twelve")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelector('.rk-error') && document.querySelector('.rk-error').textContent === 'Please type a whole number.'", timeout=TIMEOUT)
    age.fill("41")
    page.keyboard.press("Enter")
    mail = page.get_by_label("Your e-mail?")
    mail.wait_for(timeout=TIMEOUT)
    # The last answer can be changed: Edit goes back to its question.
    edit = page.get_by_role("button", name="Edit your answer: 41")
    edit.wait_for(timeout=TIMEOUT)
    audit(page, "typed: an answer to edit")
    edit.click()
    page.wait_for_selector("text=Your e-mail?", state="detached", timeout=TIMEOUT)
    age = page.get_by_label("How old are you?")
    # The field holds the answer being changed, to mend rather than type again.
    assert age.input_value() == "41", age.input_value()
    age.fill("42")
    page.keyboard.press("Enter")
    mail.wait_for(timeout=TIMEOUT)
    assert mail.get_attribute("type") == "email" and mail.get_attribute("autocomplete") == "email"
    # An optional question sent empty: its reply says so, in the widget's words, not an empty bubble.
    page.keyboard.press("Enter")
    day = page.get_by_label("Which day?")
    day.wait_for(timeout=TIMEOUT)
    none = page.locator(".rk-mine.rk-none")
    assert none.count() == 1 and none.text_content() == "No answer", [none.count(), page.locator(".rk-mine").all_text_contents()]
    assert all(t.strip() for t in page.locator(".rk-mine").all_text_contents()), "no empty bubble"
    page.get_by_role("button", name="Edit your answer: No answer").wait_for(timeout=TIMEOUT)
    audit(page, "typed: a question left empty")
    assert day.get_attribute("type") == "date" and day.get_attribute("min") == "2026-01-01"
    day.fill("2026-03-14")
    page.keyboard.press("Enter")
    at = page.get_by_label("At what time?")
    at.wait_for(timeout=TIMEOUT)
    assert at.get_attribute("type") == "time" and at.get_attribute("min") == "09:00" and at.get_attribute("max") == "17:30"
    assert at.input_value() == "12:00", "the flow's value is what the field starts with"
    at.fill("10:45")
    page.keyboard.press("Enter")
    group = page.get_by_role("group", name="What would you like?")
    group.wait_for(timeout=TIMEOUT)
    boxes = group.get_by_role("checkbox")
    assert boxes.count() == 3
    # The flow's "selected" option starts ticked; the others do not.
    assert group.get_by_label("Tea").is_checked() and not group.get_by_label("Cake").is_checked()
    shot(page, "checkboxes")
    audit(page, "typed: checkboxes")
    for name in ["Tea", "Cake", "Milk"]:
        group.get_by_label(name).check()
    page.get_by_role("button", name="Order").click()
    page.wait_for_function("() => document.querySelector('.rk-error') && document.querySelector('.rk-error').textContent === 'Choose at most 2.'", timeout=TIMEOUT)
    group.get_by_label("Milk").uncheck()
    page.get_by_role("button", name="Order").click()
    page.get_by_text("At 42, Tea, Cake on 2026-03-14 at 10:45.").wait_for(timeout=TIMEOUT)
    page.locator(".rk-answer", has_text="Tea, Cake").wait_for(timeout=TIMEOUT)
    shot(page, "typed-end")
    # The end hands the page the answers, typed: the changed age, the date's text, the list chosen.
    assert page.evaluate("() => window.dismissed") is None, "not before the end"
    page.get_by_text("At 42, Tea, Cake on 2026-03-14 at 10:45.").click()
    page.wait_for_function("() => window.dismissed", timeout=TIMEOUT)
    detail = page.evaluate("() => window.dismissed")
    assert detail["reason"] == "completed" and detail["flow"] == "typed" and detail["conversation"], detail
    assert detail["answers"] == {"age": 42, "mail": None, "day": "2026-03-14", "at": "10:45", "food": ["Tea", "Cake"]}, detail
    context.close()
    # The widget's own words follow the visitor's language (here Italian), as the server's do;
    # in the dark scheme the field's hint is as readable as text.
    context = browser.new_context(reduced_motion="reduce", locale="it-IT", color_scheme="dark")
    page = context.new_page()
    page.goto(server.url + "play/typed")
    age = page.get_by_label("How old are you?")
    age.wait_for(timeout=TIMEOUT)
    assert age.get_attribute("placeholder") == "18 – 120"
    audit(page, "typed: number, dark")
    age.fill("12")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelector('.rk-error') && document.querySelector('.rk-error').textContent === 'Il minimo accettato è 18.'", timeout=TIMEOUT)
    age.fill("42")
    page.keyboard.press("Enter")
    page.get_by_role("button", name="Modifica la risposta: 42").wait_for(timeout=TIMEOUT)
    context.close()


def multiline_answer(browser, server):
    """A multi-line input is a text area: Enter starts a line and sends nothing, Ctrl+Enter
    sends (the hint says so and describes the field), and the reply keeps its lines."""
    context = browser.new_context(reduced_motion="reduce")
    page = context.new_page()
    sent = []
    page.on("request", lambda r: sent.append(r.url) if "/intents" in r.url else None)
    page.goto(server.url + "play/notes")
    area = page.get_by_label("Anything else?")
    area.wait_for(timeout=TIMEOUT)
    assert area.evaluate("e => e.tagName") == "TEXTAREA"
    hint = page.locator("#" + area.get_attribute("aria-describedby"))
    assert hint.text_content() == "Ctrl+Enter sends", hint.text_content()
    audit(page, "multiline: empty")
    # Longer than the server takes (8 KiB): refused in the visitor's words, on the field, and
    # nothing is sent (the server's answer would be a developer's message).
    area.fill("é" * 4097)
    area.press("Control+Enter")
    page.wait_for_function("() => (document.querySelector('.rk-error') || {}).textContent === 'That answer is too long; please shorten it.'",
                           timeout=TIMEOUT)
    assert area.get_attribute("aria-invalid") == "true"
    assert page.locator(".rk-error").get_attribute("id") in area.get_attribute("aria-describedby").split()
    assert not sent, f"nothing was sent: {sent}"
    area.fill("")
    area.press("Control+Enter")  # empty: the flow requires an answer
    err = page.locator(".rk-error")
    err.wait_for(timeout=TIMEOUT)
    area = page.get_by_label("Anything else?")
    assert err.get_attribute("id") in area.get_attribute("aria-describedby").split(), "the refusal describes the field"
    # A refusal draws the block again: what was typed stays, line breaks and all.
    area.fill("Too\nshort")
    area.press("Control+Enter")
    page.wait_for_function("() => (document.querySelector('.rk-error') || {}).textContent === 'Please type at least 15 characters.'",
                           timeout=TIMEOUT)
    area = page.get_by_label("Anything else?")
    assert area.input_value() == "Too\nshort", repr(area.input_value())
    area.fill("")
    area.click()
    page.keyboard.type("First line")
    page.keyboard.press("Enter")
    page.keyboard.type("Second line")
    # Had Enter sent "First line", the flow would have gone on without the second line.
    assert area.input_value() == "First line\nSecond line", repr(area.input_value())
    shot(page, "multiline")
    page.keyboard.press("Control+Enter")
    page.get_by_text("Noted:").wait_for(timeout=TIMEOUT)
    reply = page.locator(".rk-mine", has_text="First line")
    reply.wait_for(timeout=TIMEOUT)
    assert reply.inner_text().startswith("First line\nSecond line"), repr(reply.inner_text())
    assert len(sent) == 3, f"three intents (the empty and the short one refused, then the answer), not {sent}"
    context.close()


def developer_messages(browser, server):
    """An answer the server turns away for a reason the visitor cannot mend (a 400) is said in the
    visitor's words; the server's own message goes to the console for the site's developer."""
    context = browser.new_context(reduced_motion="reduce")
    page = context.new_page()
    warnings = []
    page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
    raw = '"submit" needs "text", a string of at most 8192 bytes'
    page.route("**/intents", lambda route: route.fulfill(
        status=400, content_type="application/json", body=json.dumps({"error": {"code": "bad-field", "message": raw}})))
    page.goto(server.url + "play/notes")
    area = page.get_by_label("Anything else?")
    area.wait_for(timeout=TIMEOUT)
    area.fill("A long enough answer, surely.")
    area.press("Control+Enter")
    page.get_by_text("Something went wrong.").wait_for(timeout=TIMEOUT)
    assert raw not in page.locator("body").inner_text(), "the API's message is not the visitor's"
    assert any(raw in w for w in warnings), f"the developer finds it in the console: {warnings}"
    # A site's page whose flow cannot start (no such flow) shows the visitor nothing; the
    # developer reads why in the console.
    warnings.clear()
    page.route(server.url + "site.html", lambda route: route.fulfill(status=200, content_type="text/html", body=(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Site</title></head><body><main><h1>Site</h1>'
        '<div id="chat"></div></main><script src="/widget.js" data-flow="nosuch" data-target="#chat"></script></body></html>')))
    page.goto(server.url + "site.html")
    page.wait_for_function("() => document.querySelector('.rk-hidden') !== null", timeout=TIMEOUT)
    assert "could not start" not in page.locator("body").inner_text()
    assert any("could not start" in w and "nosuch" in w for w in warnings), f"{warnings}"
    assert any("did you mean" in w for w in warnings) is False, "no flow is near nosuch"
    # Attributes that cannot be read are said, with what is used instead: a mistyped mode plays
    # inline, a target that matches nothing puts the conversation after the script.
    warnings.clear()
    page.route(server.url + "typos.html", lambda route: route.fulfill(status=200, content_type="text/html", body=(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Site</title></head><body><main><h1>Site</h1>'
        '</main><script src="/widget.js" data-flow="hello" data-mode="launchr" data-target="#chaat" data-session-cap="two"></script>'
        '</body></html>')))
    page.goto(server.url + "typos.html")
    page.locator(".rk-frame").wait_for(timeout=TIMEOUT)
    for said in ('data-mode must be inline or launcher, not "launchr"', 'data-target "#chaat" matches nothing on the page',
                 "data-session-cap must be a whole number"):
        assert any(said in w for w in warnings), f"{said}: {warnings}"
    assert page.locator(".rk-launcher").count() == 0, "inline"
    context.close()
    # A site the server does not allow (no --allow-origin for it): the visitor sees nothing; the
    # developer is told once, with the flag to add (the browser hides the refusal itself). The
    # page is another origin on this machine, let reach the loopback server.
    context = browser.new_context(reduced_motion="reduce")
    context.grant_permissions(["local-network-access"])
    page = context.new_page()
    warnings = []
    page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
    page.route("http://localhost:9/**", lambda route: route.fulfill(status=200, content_type="text/html", body=(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Site</title></head><body><main><h1>Site</h1>'
        f'<div id="chat"></div></main><script src="{server.url}widget.js" data-flow="hello" data-target="#chat"></script></body></html>')))
    page.goto("http://localhost:9/page.html")
    page.wait_for_function("() => document.querySelector('.rk-hidden') !== null", timeout=TIMEOUT)
    told = [w for w in warnings if "RocketAlert" in w]
    assert len(told) == 1 and "--allow-origin http://localhost:9" in told[0], f"once, with the flag to add: {warnings}"
    assert "could not start" not in page.locator("body").inner_text()
    context.close()


def links(browser, server):
    """A button that opens a page is a link while it can be pressed: a click or Enter opens the
    page in a new tab that cannot reach back (noopener) and answers the block, so the flow goes
    on; a screen reader hears that it opens a new tab; the answer stays a link to the page."""
    for scheme, width in (("light", 1280), ("dark", 375)):
        context = browser.new_context(reduced_motion="reduce", color_scheme=scheme, viewport={"width": width, "height": 800})
        context.route("https://rocket.example/**", lambda route: route.fulfill(
            status=200, content_type="text/html", body="<!doctype html><html lang=en><title>Docs</title><p>Docs</p></html>"))
        page = context.new_page()
        page.goto(server.url + "play/links")
        page.get_by_role("button", name="Rocket is open source.").click(timeout=TIMEOUT)
        link = page.get_by_role("link", name="Read the flow format (opens in a new tab)")
        link.wait_for(timeout=TIMEOUT)
        assert link.get_attribute("href") == "https://rocket.example/docs/flow-format"
        assert link.get_attribute("target") == "_blank"
        assert {"noopener", "noreferrer"} <= set(link.get_attribute("rel").split())
        audit(page, f"links, {scheme}: two buttons, one a link")
        shot(page, f"links-{scheme}-{width}")
        with context.expect_page(timeout=TIMEOUT) as opened:
            link.click()
        tab = opened.value
        tab.wait_for_load_state()
        assert tab.url == "https://rocket.example/docs/flow-format", tab.url
        assert tab.evaluate("() => window.opener === null"), "the opened page can reach back into the conversation's"
        tab.close()
        page.get_by_text("Where would you like to go next?").wait_for(timeout=TIMEOUT)
        again = page.locator(".rk-mine a.rk-link-again")
        again.wait_for(timeout=TIMEOUT)
        assert again.get_attribute("href") == "https://rocket.example/docs/flow-format"
        assert again.inner_text().startswith("Read the flow format")
        # The keyboard: an option that opens a page, focused and pressed with Enter.
        option = page.get_by_role("link", name="Testing flows (opens in a new tab)")
        option.focus()
        audit(page, f"links, {scheme}: options, two of them links")
        shot(page, f"links-options-{scheme}-{width}")
        with context.expect_page(timeout=TIMEOUT) as opened:
            page.keyboard.press("Enter")
        assert opened.value.url == "https://rocket.example/docs/testing", opened.value.url
        opened.value.close()
        page.get_by_text("In a browser the page opens in a new tab").wait_for(timeout=TIMEOUT)
        assert page.locator(".rk-mine a.rk-link-again").count() == 2
        assert page.locator("a.rk-button").count() == 0, "only a block that can be pressed has links as buttons"
        context.close()


def picture_choice(browser, server):
    """A choice whose options have pictures: each option is a button with its picture above its
    title (loaded, from the flow's folder or a data: URI), named by its title alone; the options
    wrap as cards; a press answers the block."""
    for scheme, width in (("dark", 375), ("light", 1280)):
        context = browser.new_context(reduced_motion="reduce", color_scheme=scheme, viewport={"width": width, "height": 800})
        page = context.new_page()
        page.goto(server.url + "play/pictures")
        avatar = page.get_by_role("button", name="The avatar", exact=True)
        avatar.wait_for(timeout=TIMEOUT)
        page.wait_for_function("() => [...document.querySelectorAll('.rk-has-picture img')].every(i => i.complete && i.naturalWidth > 0)",
                               timeout=TIMEOUT)
        assert page.locator(".rk-has-picture").count() == 2 and page.locator(".rk-options.rk-pictures").count() == 1
        assert page.locator(".rk-has-picture img[alt='']").count() == 2, "the title names the option; its picture is decoration"
        boxes = page.evaluate("() => [...document.querySelectorAll('.rk-options .rk-button')].map(b => b.getBoundingClientRect().toJSON())")
        frame = page.evaluate("() => document.querySelector('.rk-frame').getBoundingClientRect().right")
        assert all(b["right"] <= frame + 1 for b in boxes), f"an option overflows the frame at {width} px: {boxes}"
        if width >= 1280:
            assert abs(boxes[0]["top"] - boxes[1]["top"]) < 2, "picture options sit side by side where there is room"
        audit(page, f"picture choice, {scheme}, {width} px")
        shot(page, f"pictures-{scheme}-{width}")
        avatar.click()
        page.get_by_text("Noted: The avatar.").wait_for(timeout=TIMEOUT)
        context.close()


def picture_room(browser, server):
    """An image block keeps its picture's room before the picture arrives: the server sends the
    size its file states, the page lays the picture out at that shape, and nothing moves when it
    comes (held here until the layout has been measured)."""
    for scheme, width in (("light", 375), ("dark", 1280)):
        context = browser.new_context(reduced_motion="reduce", color_scheme=scheme, viewport={"width": width, "height": 800})
        page = context.new_page()
        held = []
        page.route("**/files/wide.png", lambda route: held.append(route))
        page.goto(server.url + "play/photo")
        page.wait_for_selector(".rk-bubble img.rk-img", timeout=TIMEOUT)
        for _ in range(TIMEOUT // 20):
            if held:
                break
            page.wait_for_timeout(20)
        assert len(held) == 1, "the picture's request is held"
        measure = """() => { const i = document.querySelector('.rk-bubble img.rk-img'); const r = i.getBoundingClientRect();
            return {w: r.width, h: r.height, loaded: i.complete && i.naturalWidth > 0, attrs: [i.width, i.height, i.getAttribute('width'), i.getAttribute('height')],
                    below: i.closest('.rk-bubble').getBoundingClientRect().bottom - i.closest('.rk-bubble').getBoundingClientRect().top}; }"""
        before = page.evaluate(measure)
        assert not before["loaded"], f"the picture has not arrived yet: {before}"
        assert before["attrs"][2:] == ["64", "24"], f"the server's size reached the page: {before}"
        assert before["h"] > 0 and abs(before["w"] / before["h"] - 64 / 24) < 0.05, f"its room has the picture's shape before it comes: {before}"
        held[0].continue_()
        page.wait_for_function("() => { const i = document.querySelector('.rk-bubble img.rk-img'); return i.complete && i.naturalWidth === 64; }",
                               timeout=TIMEOUT)
        after = page.evaluate(measure)
        assert abs(after["h"] - before["h"]) < 0.5 and abs(after["below"] - before["below"]) < 0.5, f"nothing moved when it came: {before} → {after}"
        audit(page, f"a picture block, {scheme}, {width} px")
        # Its caption is the picture's text alternative, said once: the bubble is named by it.
        tree = page.locator(".rk-log").aria_snapshot()
        assert '- button "A wide picture":' in tree and 'img "A wide picture"' in tree and "A wide picture A wide picture" not in tree, tree
        page.keyboard.press("Enter")
        page.get_by_text("Below the picture.").wait_for(timeout=TIMEOUT)
        context.close()
    # A picture file changed after its flow was read (its size as the server last read it is
    # stale): once it arrives, it is laid out as the picture it is, not stretched to the old size.
    context = browser.new_context(reduced_motion="reduce", viewport={"width": 1280, "height": 800})
    page = context.new_page()
    with open(os.path.join(FLOWS, "avatar.png"), "rb") as f:
        square = f.read()
    page.route("**/files/wide.png", lambda route: route.fulfill(status=200, content_type="image/png", body=square))
    page.goto(server.url + "play/photo")
    page.wait_for_function("() => { const i = document.querySelector('.rk-bubble img.rk-img'); return i && i.complete && i.naturalWidth > 0; }",
                           timeout=TIMEOUT)
    box = page.evaluate("() => { const i = document.querySelector('.rk-bubble img.rk-img'); const r = i.getBoundingClientRect(); "
                        "return [r.width, r.height, i.naturalWidth, i.naturalHeight, i.getAttribute('width')]; }")
    assert box[2:4] == [2, 2] and abs(box[0] - 2) < 0.5 and abs(box[1] - 2) < 0.5 and box[4] is None, f"laid out as the picture it got: {box}"
    context.close()


def nps_rating(browser, server):
    """A rating from 0 to 10: eleven radios from 0, the ends' words describing the first and the
    last, inside the frame at 375 px; arrows pick 0 and Done answers it: the reply says 0 / 10."""
    for scheme, width in (("dark", 375), ("light", 1280)):
        context = browser.new_context(reduced_motion="reduce", color_scheme=scheme, viewport={"width": width, "height": 800})
        page = context.new_page()
        page.clock.install()  # time flows as it does, until the digits below stop it
        page.goto(server.url + "play/nps")
        group = page.get_by_role("group", name="How likely are you to recommend us?")
        group.wait_for(timeout=TIMEOUT)
        radios = group.get_by_role("radio")
        assert radios.count() == 11, radios.count()
        assert [radios.nth(k).get_attribute("value") for k in (0, 10)] == ["0", "10"]
        assert radios.nth(0).get_attribute("aria-describedby") and radios.nth(10).get_attribute("aria-describedby")
        boxes = page.evaluate("() => [...document.querySelectorAll('.rk-step')].map(b => b.getBoundingClientRect().toJSON())")
        frame = page.evaluate("() => document.querySelector('.rk-frame').getBoundingClientRect().right")
        assert all(b["right"] <= frame + 1 for b in boxes), f"a step overflows the frame at {width} px: {boxes}"
        page.wait_for_function("() => document.activeElement && document.activeElement.type === 'radio'", timeout=TIMEOUT)
        # Done before a value is picked: said under the scale, the focus back on the first value.
        group.get_by_role("button", name="Done").click()
        asked = page.locator(".rk-rating .rk-error")
        asked.wait_for(timeout=TIMEOUT)
        assert asked.text_content() == "Pick a rating from 0 to 10 first." and asked.get_attribute("role") == "alert", asked.text_content()
        page.wait_for_function("() => document.activeElement && document.activeElement.value === '0'", timeout=TIMEOUT)
        audit(page, f"a rating sent before a value is picked, {scheme}, {width} px")
        shot(page, f"nps-asked-{scheme}-{width}")
        page.keyboard.press("ArrowRight")
        asked.wait_for(state="detached", timeout=TIMEOUT)
        assert page.locator(".rk-rating input:checked").get_attribute("value") == "1"
        page.keyboard.press("ArrowLeft")
        assert page.locator(".rk-rating input:checked").get_attribute("value") == "0"
        audit(page, f"a rating from 0, {scheme}, {width} px")
        shot(page, f"nps-{scheme}-{width}")
        page.keyboard.press("Tab")
        assert focused_text(page) == "Done"
        page.keyboard.press("Enter")
        page.get_by_text("0 / 10").wait_for(timeout=TIMEOUT)
        page.get_by_text("Your score: 0.").wait_for(timeout=TIMEOUT)
        # Edit goes back to the question, which starts on the answer it had.
        page.get_by_role("button", name="Edit your answer: 0 / 10").click()
        page.wait_for_function("() => document.querySelector('.rk-rating input:checked:not([disabled])')", timeout=TIMEOUT)
        assert page.locator(".rk-rating input:checked").get_attribute("value") == "0"
        # Digits pick a value, as in the terminal: 1 then 0 within the pause is 10; a digit
        # after it stands alone (the page's clock is stopped, and moved on by hand).
        page.locator(".rk-rating input:checked").focus()
        page.clock.pause_at(page.evaluate("Date.now()") + 1000)
        page.keyboard.press("1")
        page.keyboard.press("0")
        assert page.locator(".rk-rating input:checked").get_attribute("value") == "10"
        assert page.evaluate("document.activeElement.value") == "10"
        page.clock.fast_forward(1500)
        page.keyboard.press("7")
        assert page.locator(".rk-rating input:checked").get_attribute("value") == "7"
        page.clock.resume()
        group = page.get_by_role("group", name="How likely are you to recommend us?")
        group.get_by_role("button", name="Done").click()
        page.get_by_text("7 / 10").wait_for(timeout=TIMEOUT)
        context.close()


def snoozed(browser, server):
    """A button that snoozes its flow: after "Remind me later" the same visitor's next visit to the
    flow shows why it is not shown now (until when), and another visitor is shown it."""
    context = browser.new_context(reduced_motion="reduce")
    page = context.new_page()
    page.goto(server.url + "play/later")
    later = page.get_by_role("button", name="Remind me later", exact=True)
    later.wait_for(timeout=TIMEOUT)
    later.click()
    page.get_by_text("Noted.").wait_for(timeout=TIMEOUT)
    page.locator(".rk-log [data-focus]").first.click()
    page.get_by_text("The conversation has ended.").wait_for(timeout=TIMEOUT)
    # A reload of an ended conversation starts the flow again: now it is snoozed.
    page.goto(server.url + "play/later")
    page.get_by_text("snoozed until", exact=False).wait_for(timeout=TIMEOUT)
    assert page.locator(".rk-log > .rk-item").count() == 0, "a snoozed flow shows nothing"
    audit(page, "a snoozed flow")
    shot(page, "snoozed")
    context.close()
    other = browser.new_context(reduced_motion="reduce")
    fresh = other.new_page()
    fresh.goto(server.url + "play/later")
    fresh.get_by_role("button", name="Remind me later", exact=True).wait_for(timeout=TIMEOUT)
    other.close()


TRIGGER_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>A long article</title></head>
<body><main><h1>A long article</h1><div style="height: 3000px">Paragraphs.</div><p>The end.</p></main>
<script src="/widget.js" data-flow="demo" data-trigger="TRIGGER"></script></body></html>"""


def trigger_page(context, server, trigger, name="article.html"):
    page = context.new_page()
    page.route(server.url + name, lambda route: route.fulfill(status=200, content_type="text/html", body=TRIGGER_PAGE.replace("TRIGGER", trigger)))
    return page


def shown(page):
    return page.evaluate("() => document.querySelectorAll('.rk-log > .rk-item').length") > 0


def wait_shown(page):
    page.wait_for_function("() => document.querySelectorAll('.rk-log > .rk-item').length > 0", timeout=TIMEOUT)


def trigger_delay(browser, server):
    """delay:30s on a virtual clock: nothing at 29 s, the conversation once 30 s have passed."""
    context = browser.new_context(reduced_motion="reduce")
    page = trigger_page(context, server, "delay:30s")
    page.clock.install()
    page.goto(server.url + "article.html")
    page.wait_for_load_state("load")
    page.clock.run_for(29_000)
    time.sleep(0.3)  # room for a wrong start to reach the page (the test fails if one does)
    assert not shown(page) and page.locator(".rk").count() == 0, "nothing before the delay"
    page.clock.run_for(2_000)
    page.clock.resume()
    wait_shown(page)
    # A reload in this tab resumes the conversation under way; it does not start another. The
    # widget notes a start after its first paint: wait for that note, not for the clock.
    page.wait_for_function("() => !!localStorage.getItem('rocket.conversation.demo')", timeout=TIMEOUT)
    first = page.evaluate("() => localStorage.getItem('rocket.conversation.demo')")
    page.reload()
    page.clock.run_for(1_000)
    page.clock.resume()
    wait_shown(page)
    # What the page notes after its paint (a new start would note a new id) has happened.
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)))")
    assert page.evaluate("() => localStorage.getItem('rocket.conversation.demo')") == first
    context.close()


def trigger_scroll_and_tabs(browser, server):
    """scroll:50%: nothing at 30 %, the conversation past half; a second tab waiting too is
    cancelled, and a tab opened later shows nothing."""
    context = browser.new_context(reduced_motion="reduce", viewport={"width": 1280, "height": 800})
    a = trigger_page(context, server, "scroll:50%")
    a.goto(server.url + "article.html")
    b = trigger_page(context, server, "scroll:50%")
    b.goto(server.url + "article.html")
    for page in (a, b):
        page.wait_for_load_state("load")
    a.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight * 0.3 - window.innerHeight)")
    time.sleep(0.3)
    assert not shown(a), "not at 30 %"
    a.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight * 0.6 - window.innerHeight)")
    wait_shown(a)
    shot(a, "trigger-scroll")
    b.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")
    time.sleep(0.5)
    assert not shown(b) and b.locator(".rk").count() == 0, "another tab does not show it again"
    c = trigger_page(context, server, "scroll:50%")
    c.goto(server.url + "article.html")
    c.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")
    time.sleep(0.5)
    assert not shown(c) and c.locator(".rk").count() == 0, "nor a tab opened later in the visit"
    context.close()


def trigger_exit_and_visits(browser, server):
    """exit-intent: the pointer leaving through the top; visits:2: not on the first visit, but
    on the next (a page more than 30 minutes after the last)."""
    context = browser.new_context(reduced_motion="reduce", viewport={"width": 1280, "height": 800})
    page = trigger_page(context, server, "exit-intent")
    page.goto(server.url + "article.html")
    page.wait_for_load_state("load")
    page.mouse.move(600, 400)
    page.mouse.move(600, 200)
    time.sleep(0.3)
    assert not shown(page), "moving within the page is no exit"
    page.mouse.move(600, 5)
    page.mouse.move(600, -20)
    wait_shown(page)
    context.close()
    context = browser.new_context(reduced_motion="reduce")
    page = trigger_page(context, server, "visits:2", name="visits.html")
    page.goto(server.url + "visits.html")
    page.wait_for_load_state("load")
    time.sleep(0.3)
    assert not shown(page), "not on the first visit"
    page.reload()
    page.wait_for_load_state("load")
    time.sleep(0.3)
    assert not shown(page), "a reload is the same visit"
    # The last page of this visit was 31 minutes ago: the next page begins visit 2.
    page.evaluate("() => { const v = JSON.parse(localStorage.getItem('rocket.visit')); v.last -= 31 * 60 * 1000; localStorage.setItem('rocket.visit', JSON.stringify(v)); }")
    page.reload()
    wait_shown(page)
    assert json.loads(page.evaluate("() => localStorage.getItem('rocket.visit')"))["count"] == 2
    context.close()


def report_log(path):
    """An experiment's records: variants a and b and a holdout, a four-block funnel with drops."""
    import random
    rng = random.Random(7)
    t = 1_796_000_000.0
    with open(path, "w") as f:
        for k in range(400):
            cid = "c%05d" % k
            u = rng.random()
            if u < 0.1:
                f.write(json.dumps({"at": t, "event": "exposure", "flow": "onboarding", "experiment": "copy", "variant": "holdout",
                                    "shown": False, "conversation": cid}) + "\n")
                continue
            v = "a" if u < 0.55 else "b"
            f.write(json.dumps({"at": t, "event": "exposure", "flow": "onboarding", "experiment": "copy", "variant": v, "shown": True,
                                "conversation": cid}) + "\n")
            f.write(json.dumps({"at": t, "event": "started", "flow": "onboarding", "variant": v, "conversation": cid}) + "\n")
            # Variant b's copy divides by a count that is sometimes 0: the report lists where.
            if v == "b" and k % 3 == 0:
                f.write(json.dumps({"at": t, "event": "expressionError", "id": "score", "path": "set.ratio", "code": "division-by-zero",
                                    "message": "division by zero", "variant": v, "conversation": cid}) + "\n")
            for i, block in enumerate(["welcome", "ask-name", "pick-plan", "thanks"]):
                f.write(json.dumps({"at": t, "event": "blockAdded", "index": i, "id": block, "type": "text", "variant": v, "conversation": cid}) + "\n")
                if rng.random() > (0.8 if v == "a" else 0.88):
                    f.write(json.dumps({"at": t, "event": "dismissed", "reason": "closed", "count": i + 1, "ids": [], "variant": v,
                                        "conversation": cid}) + "\n")
                    break
                t += rng.uniform(1, 6)
                f.write(json.dumps({"at": t, "event": "tapped", "index": i, "id": block, "automatic": False, "variant": v,
                                    "conversation": cid}) + "\n")
            else:
                f.write(json.dumps({"at": t, "event": "dismissed", "reason": "completed", "count": 4, "ids": [], "variant": v,
                                    "conversation": cid}) + "\n")


def report_page(browser):
    """rocket report --html in Chromium: self-contained (no request leaves the page), the
    comparison chart and a funnel per variant present and labelled, the errors of the variant
    that met one, nothing wider than the screen; screenshots at 375 and 1280 px, light and dark."""
    scratch = tempfile.mkdtemp(prefix="rocket-report-")
    try:
        log, page_path = os.path.join(scratch, "events.jsonl"), os.path.join(scratch, "report.html")
        report_log(log)
        r = subprocess.run([ROCKET, "report", log, "--html", page_path], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        for scheme in ("light", "dark"):
            for width in (375, 1280):
                context = browser.new_context(color_scheme=scheme, viewport={"width": width, "height": 900})
                page = context.new_page()
                requests = []
                page.on("request", lambda req: requests.append(req.url))
                page.goto("file://" + page_path)
                assert [u for u in requests if not u.startswith("file://")] == [], f"the page fetched {requests}"
                assert page.locator("h2").first.inner_text() == "Flow onboarding"
                charts = page.locator("svg[role=img]")
                assert charts.count() == 3, "a comparison chart and a funnel for a and b"
                titles = [charts.nth(i).locator("title").text_content() for i in range(charts.count())]
                assert titles[0].startswith("Differences in completion rate of onboarding"), titles
                assert all(t.startswith("Funnel of ") for t in titles[1:]), titles
                assert page.locator("svg text", has_text="b vs a").count() == 1, "the comparison is labelled"
                errors = page.locator("h3", has_text="Errors: b")
                assert errors.count() == 1 and page.locator("h3", has_text="Errors: a").count() == 0, "only b met an error"
                assert page.locator("td.words", has_text="division-by-zero").count() == 1
                for i in range(charts.count()):
                    box = charts.nth(i).bounding_box()
                    assert box["width"] > 100 and box["x"] + box["width"] <= width + 1, f"chart {i} fits: {box}"
                overflow = page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
                assert overflow <= 0, f"the page is {overflow} px wider than the screen"
                # A table wider than the screen scrolls in its region, which shades the edge where
                # more is (covers that move with the table hide the shade at the end reached).
                scrolling = page.evaluate("() => [...document.querySelectorAll('.scroll')].map(e => e.scrollWidth > e.clientWidth)")
                assert any(scrolling) == (width == 375), f"regions that scroll at {width} px: {scrolling}"
                attachment = page.evaluate("() => getComputedStyle(document.querySelector('.scroll')).backgroundAttachment")
                assert attachment == "local, local, scroll, scroll", attachment
                text_color = page.evaluate("() => getComputedStyle(document.querySelector('svg text')).fill")
                background = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
                rgb = lambda c: tuple(int(x) for x in c[c.index("(") + 1:c.index(")")].split(",")[:3])
                assert contrast(rgb(text_color), rgb(background)) >= 4.5, f"chart text contrast {text_color} on {background}"
                page.screenshot(path=os.path.join(ARTIFACTS, f"report-{scheme}-{width}.png"), full_page=True)
                context.close()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


CAP_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Two flows</title></head>
<body><main><h1>Two flows</h1></main>
<script src="/widget.js" data-flow="banner" data-session-cap="1"></script>
<script src="/widget.js" data-flow="typed" data-session-cap="1"></script></body></html>"""


def session_cap(browser, server):
    """data-session-cap="1" with two flows on a page: one starts, the other is refused with an
    explanation; a reload (the same visit) starts nothing new."""
    context = browser.new_context(reduced_motion="reduce")
    page = context.new_page()
    page.add_init_script("window.refusals = []; document.addEventListener('rocket:notnow', e => window.refusals.push(e.detail));")
    page.route(server.url + "two.html", lambda route: route.fulfill(status=200, content_type="text/html", body=CAP_PAGE))
    page.goto(server.url + "two.html")
    page.wait_for_function("() => window.refusals.length === 1", timeout=TIMEOUT)
    wait_shown(page)
    time.sleep(0.3)
    started = page.evaluate("() => [...document.querySelectorAll('.rk-log')].filter(l => l.children.length > 0).length")
    assert started == 1, f"one flow started, not {started}"
    refusal = page.evaluate("() => window.refusals[0]")
    assert refusal["explanation"] == ["this visit has shown 1 flow; the page allows 1"], refusal
    context.close()


CHECK_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Check</title></head>
<body><main><h1>Check</h1></main><script src="/widget.js"></script></body></html>"""


def dry_run_check(browser, server):
    """RocketAlert.check asks whether a flow would start without starting it (the page's first
    call keeps the visitor the server issues); an unknown flow rejects with the server's words."""
    context = browser.new_context()
    page = context.new_page()
    starts = []
    page.on("request", lambda r: starts.append(r.post_data) if r.url.endswith("/v1/conversations") else None)
    page.route(server.url + "check.html", lambda route: route.fulfill(status=200, content_type="text/html", body=CHECK_PAGE))
    page.goto(server.url + "check.html")
    page.wait_for_function("() => !!window.RocketAlert", timeout=TIMEOUT)
    answer = page.evaluate("() => RocketAlert.check('demo')")
    assert answer["status"] == "wouldStart" and answer["dryRun"] is True, answer
    visitor = page.evaluate("() => RocketAlert.visitor()")
    assert visitor and visitor == answer.get("visitor"), (visitor, answer)
    again = page.evaluate("() => RocketAlert.check('demo')")
    assert again["status"] == "wouldStart" and "visitor" not in again, "the second call comes with the kept token"
    assert page.evaluate("() => RocketAlert.visitor()") == visitor
    error = page.evaluate("() => RocketAlert.check('nope').then(() => null, e => e.message)")
    assert error and "no flow" in error, error
    assert all('"dryRun":true' in (b or "") for b in starts), starts
    assert page.locator(".rk-log").count() == 0, "nothing was drawn"
    context.close()


def request_before_frame(browser, server, timings):
    """The page's first request (a start; after a reload, the resume) leaves before the widget
    draws its frame, and `rocket:start` comes once the first view is drawn."""
    context = browser.new_context(reduced_motion="reduce")
    page = context.new_page()
    page.add_init_script("""
      window.requests = [];
      const send = window.fetch;
      window.fetch = function (url, init) {
        window.requests.push({url: String(url), method: (init && init.method) || 'GET',
          framed: document.querySelector('.rk-frame') !== null, styled: document.getElementById('rocket-style') !== null});
        return send.apply(this, arguments);
      };
      window.starts = [];
      document.addEventListener('rocket:start', e => window.starts.push({id: e.detail.id, drawn: document.querySelector('.rk-log > .rk-item') !== null}));
    """)
    # A later page of the demo in the same browser (its fonts and caches warm): timed as the first was.
    timings["first_bubble_later_ms"] = first_bubble.open_timed(page, server.url + "play/demo", TIMEOUT)
    page.wait_for_function("() => window.starts.length === 1", timeout=TIMEOUT)
    first = page.evaluate("() => window.requests[0]")
    assert first["method"] == "POST" and first["url"].endswith("/v1/conversations"), first
    assert not first["framed"] and not first["styled"], f"the start waited for the frame: {first}"
    start = page.evaluate("() => window.starts[0]")
    assert start["drawn"], f"rocket:start came before the first view was drawn: {start}"
    # A reload resumes: the conversation's GET is the first request, before the frame too.
    page.reload()
    wait_shown(page)
    first = page.evaluate("() => window.requests[0]")
    assert first["method"] == "GET" and first["url"].endswith("/v1/conversations/" + start["id"]), first
    assert not first["framed"], f"the resume waited for the frame: {first}"
    context.close()


def main():
    os.makedirs(ARTIFACTS, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="rocket-browser-")
    failures, timings = [], {}
    demo = Server(os.path.join(scratch, "demo.sqlite"))
    flows = Server(os.path.join(scratch, "flows.sqlite"), FLOWS)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            tests = [
                ("demo flow with the keyboard", lambda: demo_keyboard(browser, demo, timings)),
                ("demo flow with the mouse, dark and narrow; the close button", lambda: demo_mouse(browser, demo)),
                ("a press on a block shown before the last answer arrived is kept", lambda: press_before_answer(browser, demo)),
                ("the first request leaves before the frame is drawn; rocket:start follows the first view", lambda: request_before_frame(browser, demo, timings)),
                ("a banner with buttons, a choice, flow text as text", lambda: banner_and_text(browser, flows)),
                ("typed inputs with native fields, checkboxes for a multiple choice; rocket:dismiss hands the page the answers", lambda: typed_and_checkboxes(browser, flows)),
                ("data-lang: the page's language for the conversation's texts and the widget's words", lambda: page_language(browser, flows)),
                ("data-vars: the page's flow variables, inline and in the launcher; an unreadable one shows nothing and says why", lambda: data_vars(browser, flows)),
                ("right to left: an Arabic flow laid out from the right, its words marked; the launcher on an Arabic page; a Hebrew reply", lambda: right_to_left(browser, flows)),
                ("a multi-line answer: a text area, Enter a new line, Ctrl+Enter sends", lambda: multiline_answer(browser, flows)),
                ("a 400 is said in the visitor's words, a start that fails on a site's page shows nothing; the server's words go to the console",
                 lambda: developer_messages(browser, flows)),
                ("buttons that open pages: links in a new tab, noopener, said to screen readers; the flow goes on", lambda: links(browser, flows)),
                ("a picture choice: options with pictures, named by their titles, side by side where there is room", lambda: picture_choice(browser, flows)),
                ("a picture block keeps its room before its picture arrives: nothing below it moves", lambda: picture_room(browser, flows)),
                ("a rating from 0 to 10: eleven radios from 0, arrows pick 0, the reply says 0 / 10", lambda: nps_rating(browser, flows)),
                ("a snoozing button: the same visitor is told until when, another is shown the flow", lambda: snoozed(browser, flows)),
                ("the launcher: a badge for what came while closed, a panel, Esc and the focus", lambda: launcher(browser, demo)),
                ("the launcher on a phone with its keyboard open: the panel rises above it and fits what is left", lambda: launcher_keyboard(browser, demo)),
                ("data-position: the launcher in the corner asked for; a value it cannot use is said", lambda: launcher_position(browser, demo)),
                ("data-accent: the site's colour, readable in each scheme; no colour keeps the widget's own", lambda: accent(browser, demo)),
                ("an alert whose actions update live; an action sheet; one whose visitor is erased closes", lambda: live_alert(browser, demo)),
                ("page trigger delay:30s on a virtual clock; a reload resumes, never re-pops", lambda: trigger_delay(browser, demo)),
                ("page trigger scroll:50%; a second tab is cancelled, a later one shows nothing", lambda: trigger_scroll_and_tabs(browser, demo)),
                ("page triggers exit-intent and visits:2", lambda: trigger_exit_and_visits(browser, demo)),
                ("a per-visit cap: two flows on a page, one starts, the other is refused with why", lambda: session_cap(browser, flows)),
                ("RocketAlert.check: would a flow start, asked without starting it", lambda: dry_run_check(browser, demo)),
                ("rocket report's page: self-contained, charts present and labelled, 375 and 1280 px, light and dark", lambda: report_page(browser)),
                ("a conversation resumed after a server restart", lambda: resume_after_restart(browser, os.path.join(scratch, "resume.sqlite"))),
                ("a dropped stream waits out a refusal's Retry-After, and opens at once when the browser is back online", lambda: stream_waits(browser, scratch)),
                ("a press made offline is sent once the browser is back online, once", lambda: offline_press(browser, flows)),
                ("an edited flow: a conversation under way goes on with its version; one that cannot go on says so and starts again", lambda: edited_flow(browser, scratch)),
            ]
            for name, test in tests:
                try:
                    test()
                    print(f"browser: ok: {name}")
                except Exception as e:  # one failing test does not hide the others
                    failures.append(name)
                    print(f"browser: FAIL: {name}: {e}")
                    traceback.print_exc()
            browser.close()
    finally:
        demo.stop()
        flows.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    with open(os.path.join(ARTIFACTS, "timings.json"), "w") as f:
        json.dump(timings, f)
    print(f"browser: first bubble of the demo {timings.get('first_bubble_ms', 0):.0f} ms after navigation on a fresh browser's first page, "
          f"{timings.get('first_bubble_later_ms', 0):.0f} ms on a later page (debug server, reduced motion; scripts/bench-serve.py is the benchmark); screenshots in {ARTIFACTS}")
    if failures:
        sys.exit(f"browser: {len(failures)} of {len(tests)} failed")


if __name__ == "__main__":
    main()
