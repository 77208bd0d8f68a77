#!/usr/bin/env python3
"""axe-core's rules (WCAG 2.0/2.1/2.2 A and AA) on every page `rocket serve` shows: the index, the
launcher on a site's page (closed and open), and /play/NAME at every step of every example flow
(examples/; the flow in many languages once more in Arabic, right to left), in light and dark
schemes, at 375 and 1280 px. Zero violations is the bar; each one found is printed with the step it came at.

Run from the package root after `swift build`: python3 Tests/Browser/axe_test.py
Needs chromium (Debian), playwright and axe-playwright-python (pip); scripts/install-deps.sh --tests.
"""
import datetime
import subprocess
import os
import sys
import tempfile
import shutil

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser_test as bt  # noqa: E402  (the server runner and the browser are shared)

try:
    from axe_playwright_python.sync_playwright import Axe
except ImportError:
    sys.exit("axe tests: axe-playwright-python is missing: sh scripts/install-deps.sh --tests")

EXAMPLES = os.path.join(bt.ROOT, "examples")
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
# What a step answers, tried in turn until the input takes one (the examples' rules differ).
ANSWERS = ["Ada", "1234", "ada@example.com", "2026-01-31"]
MAX_STEPS = 40


CHECKED = []


def check(axe, page, where, problems):
    """Runs axe on the page (after entrance animations) and records each violation."""
    CHECKED.append(where)
    page.wait_for_function(
        "() => document.getAnimations().every(a => a.effect.getComputedTiming().iterations === Infinity || a.playState !== 'running')",
        timeout=bt.TIMEOUT)
    results = axe.run(page, options={"runOnly": {"type": "tag", "values": TAGS}})
    for v in results.response.get("violations", []):
        nodes = "; ".join(" ".join(n.get("target", [])) for n in v.get("nodes", [])[:3])
        problems.append(f"{where}: {v['id']} ({v.get('impact')}): {v.get('help')} at {nodes}")


def step(page):
    """Answers the block that takes input now; False when there is none (the flow has ended)."""
    target = page.locator(".rk-log [data-focus]")
    if target.count() == 0:
        return False
    kind = target.first.evaluate("e => e.tagName === 'INPUT' ? e.type : e.tagName")
    if kind in ("radio", "checkbox"):
        # A rating or a multiple choice: the first value (or option), then its button.
        target.first.check()
        with page.expect_response(lambda r: "/intents" in r.url, timeout=bt.TIMEOUT):
            page.locator(".rk-log .rk-pick .rk-send").first.click()
    elif kind not in ("BUTTON", "DIV", "SPAN", "A"):
        # A text field, or a text area (several lines), which Ctrl+Enter sends.
        field = page.locator(".rk-log .rk-input:not([disabled])")
        area = kind == "TEXTAREA"
        send = "Control+Enter" if area else "Enter"
        typed = {"number": ["7"], "email": ["ada@example.com"], "date": ["2026-01-31"], "tel": ["+39 02 1234567"],
                 "url": ["https://example.org"]}
        kind = field.first.get_attribute("type") if field.count() else ""
        if field.count() and field.first.get_attribute("inputmode") in ("numeric", "decimal"):
            kind = "number"  # numbers are text fields with a digits keyboard
        answers = typed.get(kind, ANSWERS)
        if kind == "date" and field.first.get_attribute("min"):
            # A day the field allows (its bound may count from today): the first weekday from
            # its least, as a flow that calls back on weekdays would take.
            day = datetime.date.fromisoformat(field.first.get_attribute("min"))
            while day.weekday() >= 5:
                day += datetime.timedelta(days=1)
            answers = [day.isoformat()]
        for answer in answers:
            field = page.locator(".rk-log .rk-input:not([disabled])")
            if field.count() == 0:
                break
            field.fill(answer + ("\nand a second line" if area else ""))
            # The server's answer to the intent decides, whatever the page shows meanwhile.
            with page.expect_response(lambda r: "/intents" in r.url, timeout=bt.TIMEOUT) as answered:
                field.press(send)
            if answered.value.status == 200:
                break
    else:
        with page.expect_response(lambda r: "/intents" in r.url, timeout=bt.TIMEOUT):
            target.first.click()
    page.wait_for_function("() => !document.querySelector('.rk-typing')", timeout=bt.TIMEOUT)
    return True


def walk(browser, axe, server, flow, scheme, width, problems, locale="en-US"):
    context = browser.new_context(color_scheme=scheme, viewport={"width": width, "height": 800}, reduced_motion="reduce", locale=locale)
    page = context.new_page()
    page.goto(server.url + "play/" + flow + "?user=Ada")
    where = f"{flow} ({scheme}, {width} px)" + ("" if locale == "en-US" else f" in {locale}")
    # A flow whose scenario says "not now" shows its explanation and nothing else.
    page.wait_for_function("() => !!document.querySelector('.rk-log > .rk-item') || document.querySelector('.rk-hidden, .rk-status:not(:empty)')",
                           timeout=bt.TIMEOUT)
    if page.locator(".rk-log > .rk-item").count() == 0:
        check(axe, page, f"{where}, not now", problems)
        context.close()
        return
    for n in range(MAX_STEPS):
        page.wait_for_function("() => !document.querySelector('.rk-typing')", timeout=bt.TIMEOUT)
        ended = page.locator(".rk-end").count() > 0
        check(axe, page, f"{where}, step {n}" + (" (end)" if ended else ""), problems)
        if ended:
            break
        if not step(page):
            # Nothing to answer: a block that goes on by itself, or the end on its way.
            page.wait_for_function(
                "() => !!document.querySelector('.rk-end') || !!document.querySelector('.rk-log [data-focus]')", timeout=bt.TIMEOUT)
    else:
        # A walk that never ends checked the same screen over and over, not the flow.
        problems.append(f"{where}: the walk did not reach the end in {MAX_STEPS} steps")
    context.close()


def main():
    scratch = tempfile.mkdtemp(prefix="rocket-axe-")
    server = bt.Server(os.path.join(scratch, "axe.sqlite"), EXAMPLES)
    problems = []
    flows = sorted(f[:-5] for f in os.listdir(EXAMPLES) if f.endswith(".json") and not f.endswith(".test.json"))
    try:
        with bt.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=bt.CHROMIUM, args=["--no-sandbox"])
            axe = Axe()
            for scheme in ("light", "dark"):
                for width in (375, 1280):
                    context = browser.new_context(color_scheme=scheme, viewport={"width": width, "height": 800})
                    page = context.new_page()
                    page.goto(server.url)
                    check(axe, page, f"the index ({scheme}, {width} px)", problems)
                    # Its embed line (with the server's whole address) wraps instead of running off
                    # a phone's screen, and the page follows the scheme.
                    if page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth") > 0:
                        problems.append(f"the index ({scheme}, {width} px) scrolls sideways")
                    if scheme == "dark" and page.evaluate("() => getComputedStyle(document.body).color") == "rgb(0, 0, 0)":
                        problems.append("the index stays light (black text) in the dark scheme")
                    context.close()
                    # The launcher on a site's page, closed and then open.
                    context, page = bt.open_launcher_page(
                        browser, server, "welcome", color_scheme=scheme, viewport={"width": width, "height": 800}, reduced_motion="reduce")
                    page.wait_for_function("() => !document.querySelector('.rk-badge').classList.contains('rk-hidden')", timeout=bt.TIMEOUT)
                    check(axe, page, f"the launcher, closed ({scheme}, {width} px)", problems)
                    page.locator(".rk-launcher").click()
                    page.locator(".rk-log > .rk-item").first.wait_for(timeout=bt.TIMEOUT)
                    check(axe, page, f"the launcher, open ({scheme}, {width} px)", problems)
                    context.close()
                    # The same with a site's accent that needs adjusting to read (a yellow).
                    context, page = bt.open_launcher_page(
                        browser, server, "welcome", ' data-accent="#ffcc00"', color_scheme=scheme,
                        viewport={"width": width, "height": 800}, reduced_motion="reduce")
                    page.locator(".rk-launcher").click(timeout=bt.TIMEOUT)
                    # "Hi!" waits for its tap while the focus is in the panel, unless it went on
                    # by itself before the panel opened.
                    sure, hi = page.get_by_role("button", name="Sure"), page.get_by_role("button", name="Hi!")
                    sure.or_(hi).first.wait_for(timeout=bt.TIMEOUT)
                    if not sure.count():
                        hi.click(timeout=bt.TIMEOUT)
                    sure.click(timeout=bt.TIMEOUT)
                    page.locator(".rk-mine").first.wait_for(timeout=bt.TIMEOUT)
                    check(axe, page, f"the launcher with data-accent, open and answered ({scheme}, {width} px)", problems)
                    context.close()
                    # Every flow, and the flow in many languages once more in Arabic (right to left).
                    for flow, locale in [(f, "en-US") for f in flows] + [("languages", "ar")]:
                        try:
                            walk(browser, axe, server, flow, scheme, width, problems, locale)
                        except Exception as e:  # a flow that cannot be walked is a failure too
                            problems.append(f"{flow} ({scheme}, {width} px, {locale}): could not walk it: {e}")
            # The report of everything the walks above recorded, as the server serves it (a site key only).
            for scheme in ("light", "dark"):
                for width in (375, 1280):
                    context = browser.new_context(
                        color_scheme=scheme, viewport={"width": width, "height": 800},
                        extra_http_headers={"Authorization": "Bearer " + bt.SITE_KEY})
                    page = context.new_page()
                    response = page.goto(server.url + "report?minCount=1")
                    if response.status != 200:
                        problems.append(f"the report ({scheme}, {width} px): {response.status}")
                    else:
                        check(axe, page, f"the report ({scheme}, {width} px)", problems)
                        page.screenshot(path=os.path.join(bt.ARTIFACTS, f"served-report-{scheme}-{width}.png"), full_page=True)
                    context.close()
            # A page of rocket report --html whose records hold expression errors (its errors' table).
            page_path = os.path.join(scratch, "report.html")
            bt.report_log(os.path.join(scratch, "events.jsonl"))
            made = subprocess.run([bt.ROCKET, "report", os.path.join(scratch, "events.jsonl"), "--html", page_path], capture_output=True, text=True)
            if made.returncode != 0:
                problems.append(f"rocket report --html: {made.stderr}")
            else:
                for scheme in ("light", "dark"):
                    for width in (375, 1280):
                        context = browser.new_context(color_scheme=scheme, viewport={"width": width, "height": 800})
                        page = context.new_page()
                        page.goto("file://" + page_path)
                        check(axe, page, f"the report page with errors ({scheme}, {width} px)", problems)
                        context.close()
            browser.close()
    finally:
        server.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    for line in problems:
        print("axe: " + line)
    ended = sum(1 for w in CHECKED if w.endswith("(end)"))
    print(f"axe: {len(flows)} flows and the index, light and dark, 375 and 1280 px: {len(CHECKED)} screens checked, "
          f"{ended} flows walked to their end, {len(problems)} violation(s)")
    if problems:
        sys.exit(1)


if __name__ == "__main__":
    main()
