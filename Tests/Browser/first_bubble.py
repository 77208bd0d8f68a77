"""How the first bubble is timed: the one definition the browser suite and scripts/bench-serve.py use.

The page records, from navigation start, when the first item enters the conversation's log and says
so on the console. Playwright learns it from that console message rather than by polling the page:
a wait_for_function would inject Playwright's own script into the page, and on a slow machine its
compilation lands in the middle of what is being timed.
"""

MARK = "rocket-first-bubble "

OBSERVER = """
new MutationObserver((_, obs) => {
  if (document.querySelector('.rk-log > .rk-item')) {
    obs.disconnect();
    console.log(%r + performance.now());
  }
}).observe(document, {childList: true, subtree: true});
""" % MARK


def open_timed(page, url, timeout_ms):
    """Navigates `page` to `url` and returns the milliseconds from navigation to the first bubble."""
    page.add_init_script(OBSERVER)
    with page.expect_console_message(lambda m: m.text.startswith(MARK), timeout=timeout_ms) as message:
        page.goto(url)
    return float(message.value.text[len(MARK):])
