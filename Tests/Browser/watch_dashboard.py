#!/usr/bin/env python3
"""Opens `aggctl serve`'s dashboard in headless Chromium, then changes the store and watches the page
update itself without a reload.

    watch_dashboard.py CHROMIUM URL SCREENSHOT.png WIDTH CHANGE_COMMAND [TOKEN]

With TOKEN, the token is typed into the page's form, as a person would, once the live part as the
server drew it is read. Steps: load the page; read the live part as the server drew it; wait for the script's first redraw from /api/status and read it again
(the two must read alike: the script follows the server's rules); mark the page (a reload would lose the
mark); run CHANGE_COMMAND (a shell command that publishes new figures); wait until the live part
changes (CHANGE_COMMAND "-": no change, only the screenshot of the page as drawn). Prints one JSON object:
  served, drawn, changed   the live part's cards (key, then each window's name and text) at each step
  alerts                   the alert list after the change
  reloaded                 whether the page was loaded again (the mark lost)
  requests, errors         URLs outside the server, and console errors, exceptions, CSP refusals
  width                    the document's scroll width (a phone's 390 px must not scroll sideways)
  scrolled                 the sections that scroll sideways inside themselves (their headings)
"""
import json, os, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from devtools import Browser

chromium, url, screenshot, width, change = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
token = sys.argv[6] if len(sys.argv) > 6 else None
origin = url.rstrip("/")

LIVE = """JSON.stringify([...document.querySelectorAll('#live .card')].map(card => [card.dataset.key,
  ...[...card.querySelectorAll('li')].map(li => li.querySelector('.name').textContent + ': ' +
  li.querySelector('.text').textContent)]))"""


def wait(browser, expression, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if browser.evaluate("JSON.stringify(Boolean(%s))" % expression):
            return True
        time.sleep(0.1)
    return False


browser = Browser(chromium, width, 1400)
try:
    browser.navigate(url)
    # What the server sent, read before the token goes in: once it is in, the script may fetch and draw
    # before the next question reaches the page (it did, now and then, on a quiet machine).
    served = browser.evaluate(LIVE)
    if token:
        browser.evaluate("""(() => { const form = document.getElementById('token');
          form.elements.token.value = %s; form.requestSubmit(); return 'true'; })()""" % json.dumps(token))
    if not wait(browser, "window.aggctlDashboard && window.aggctlDashboard.updates >= 1", 30):
        raise SystemExit("the script never drew: " + json.dumps(browser.evaluate(
            "JSON.stringify(window.aggctlDashboard || null)")))
    drawn = browser.evaluate(LIVE)
    browser.evaluate("(() => { window.aggctlMark = 'kept'; return 'true'; })()")
    if change != "-":
        subprocess.run(["/bin/sh", "-c", change], check=True)
    before = json.dumps(drawn)
    deadline = time.time() + (30 if change != "-" else 0)
    changed = drawn
    while time.time() < deadline and json.dumps(changed) == before:
        time.sleep(0.2)
        changed = browser.evaluate(LIVE)
    alerts = browser.evaluate("JSON.stringify([...document.querySelectorAll('#alerts li')].map(li => li.textContent))")
    reloaded = browser.evaluate("JSON.stringify(window.aggctlMark !== 'kept')")
    # A section that scrolls sideways inside itself hides columns as surely as the page would.
    found = browser.evaluate("""JSON.stringify({width: document.documentElement.scrollWidth,
      scrolled: [...document.querySelectorAll('section')].filter(s => s.scrollWidth > s.clientWidth + 1)
        .map(s => (s.querySelector('h2') || {}).textContent || s.id || 'a section')})""")
    browser.screenshot(screenshot)
    browser.drain()
    requests, errors = browser.requests_and_errors()
    requests = [r for r in requests if not r.startswith(origin + "/")]
    print(json.dumps({"served": served, "drawn": drawn, "changed": changed, "alerts": alerts,
                      "reloaded": reloaded, "requests": requests, "errors": errors, **found}))
finally:
    browser.close()
