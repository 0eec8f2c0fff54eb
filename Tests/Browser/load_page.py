#!/usr/bin/env python3
"""Loads a page in headless Chromium and reports what a person's browser would do with it.

    load_page.py CHROMIUM PAGE.html SCREENSHOT.png [WIDTH HEIGHT]

Talks to Chromium over the DevTools protocol on a pipe (--remote-debugging-pipe: file descriptors 3
and 4, messages ended by NUL), so nothing listens on a port. Prints one JSON object:
  requests   every URL the page asked for besides itself (must be empty for a self-contained page)
  errors     console errors, uncaught exceptions, and browser log entries of level error (CSP refusals)
  charts     per svg[data-series]: its data-series/start/end, the section's data-key, and the polyline's
             points as the browser parsed them ([[x, y], ...]), plus the reset lines' x
  width      the document's scroll width at the given window width (a phone layout must not scroll sideways)
A screenshot of the whole page is written to SCREENSHOT.png.
"""
import base64, json, os, select, subprocess, sys, tempfile, time

chromium, page, screenshot = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
width = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
height = int(sys.argv[5]) if len(sys.argv) > 5 else 1400

to_browser_r, to_browser_w = os.pipe()
from_browser_r, from_browser_w = os.pipe()
profile = tempfile.mkdtemp(prefix="aggctl-chromium-")
flags = [
    chromium, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
    "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-extensions", "--mute-audio",
    "--user-data-dir=" + profile, "about:blank",
]


def child_setup():
    os.dup2(to_browser_r, 3)
    os.dup2(from_browser_w, 4)


browser = subprocess.Popen(flags, pass_fds=(3, 4), preexec_fn=child_setup, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, start_new_session=True)
os.close(to_browser_r)
os.close(from_browser_w)
incoming = b""
next_id = 0
events = []


def send(method, params=None, session=None):
    global next_id
    next_id += 1
    message = {"id": next_id, "method": method, "params": params or {}}
    if session:
        message["sessionId"] = session
    os.write(to_browser_w, json.dumps(message).encode() + b"\0")
    return next_id


def receive(deadline):
    global incoming
    while b"\0" not in incoming:
        remaining = deadline - time.time()
        if remaining <= 0 or not select.select([from_browser_r], [], [], remaining)[0]:
            raise TimeoutError("Chromium did not answer in time")
        chunk = os.read(from_browser_r, 1 << 20)
        if not chunk:
            raise EOFError("Chromium closed the pipe")
        incoming += chunk
    message, incoming = incoming.split(b"\0", 1)
    return json.loads(message)


def call(method, params=None, session=None, timeout=20):
    wanted = send(method, params, session)
    if os.environ.get("LOAD_PAGE_DEBUG"): print("->", method, file=sys.stderr)
    deadline = time.time() + timeout
    while True:
        message = receive(deadline)
        if message.get("id") == wanted:
            if "error" in message:
                raise RuntimeError("%s: %s" % (method, message["error"]))
            return message.get("result", {})
        events.append(message)


def wait_for(method, timeout=30):
    deadline = time.time() + timeout
    for index, message in enumerate(events):
        if message.get("method") == method:
            return events.pop(index)
    while True:
        message = receive(deadline)
        if message.get("method") == method:
            return message
        events.append(message)


try:
    target = call("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Page", "Network", "Runtime", "Log"):
        call(domain + ".enable", session=session)
    call("Emulation.setDeviceMetricsOverride",
         {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600}, session=session)
    url = "file://" + page
    call("Page.navigate", {"url": url}, session=session)
    wait_for("Page.loadEventFired")
    time.sleep(0.3)  # let late console messages arrive
    shot = call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}, session=session)
    with open(screenshot, "wb") as out:
        out.write(base64.b64decode(shot["data"]))
    script = """JSON.stringify({
      width: document.documentElement.scrollWidth,
      charts: [...document.querySelectorAll('svg[data-series]')].map(svg => ({
        series: svg.dataset.series, start: Number(svg.dataset.start), end: Number(svg.dataset.end),
        key: svg.closest('section') ? svg.closest('section').dataset.key : null,
        points: [...(svg.querySelector('polyline') ? svg.querySelector('polyline').points : [])].map(p => [p.x, p.y]),
        resets: [...svg.querySelectorAll('line.reset')].map(l => l.x1.baseVal.value)
      }))
    })"""
    evaluated = call("Runtime.evaluate", {"expression": script, "returnByValue": True}, session=session)
    found = json.loads(evaluated["result"]["value"])
    # Drain what else arrived.
    deadline = time.time() + 0.2
    try:
        while True:
            events.append(receive(deadline))
    except TimeoutError:
        pass
    requests, errors = [], []
    for message in events:
        method, params = message.get("method"), message.get("params", {})
        if method == "Network.requestWillBeSent":
            request_url = params.get("request", {}).get("url", "")
            if request_url != url:
                requests.append(request_url)
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            errors.append("console: " + " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", [])))
        elif method == "Runtime.exceptionThrown":
            errors.append("exception: " + params.get("exceptionDetails", {}).get("text", ""))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            errors.append("log: " + params["entry"].get("text", ""))
    print(json.dumps({"requests": requests, "errors": errors, **found}))
finally:
    try:
        call("Browser.close", timeout=5)
    except Exception:
        pass
    try:
        browser.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(browser.pid, 9)
        browser.wait()
    subprocess.run(["rm", "-rf", profile])
