"""Headless Chromium over the DevTools protocol on a pipe (--remote-debugging-pipe: file descriptors 3
and 4, messages ended by NUL), so nothing listens on a port. Shared by the browser tests' scripts."""
import json, os, select, subprocess, sys, tempfile, time


class Browser:
    def __init__(self, chromium, width, height, extra_flags=()):
        to_browser_r, self.to_browser_w = os.pipe()
        self.from_browser_r, from_browser_w = os.pipe()
        self.profile = tempfile.mkdtemp(prefix="aggctl-chromium-")
        flags = [
            chromium, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
            "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--disable-extensions", "--mute-audio",
            "--user-data-dir=" + self.profile, *extra_flags, "about:blank",
        ]

        def child_setup():
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        self.process = subprocess.Popen(flags, pass_fds=(3, 4), preexec_fn=child_setup, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, start_new_session=True)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.incoming = b""
        self.next_id = 0
        self.events = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Network", "Runtime", "Log"):
            self.call(domain + ".enable", session=self.session)
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
                  session=self.session)

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser_w, json.dumps(message).encode() + b"\0")
        return self.next_id

    def receive(self, deadline):
        while b"\0" not in self.incoming:
            remaining = deadline - time.time()
            if remaining <= 0 or not select.select([self.from_browser_r], [], [], remaining)[0]:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self.from_browser_r, 1 << 20)
            if not chunk:
                raise EOFError("Chromium closed the pipe")
            self.incoming += chunk
        message, self.incoming = self.incoming.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=None, timeout=20):
        wanted = self.send(method, params, session)
        deadline = time.time() + timeout
        while True:
            message = self.receive(deadline)
            if message.get("id") == wanted:
                if "error" in message:
                    raise RuntimeError("%s: %s" % (method, message["error"]))
                return message.get("result", {})
            self.events.append(message)

    def wait_for(self, method, timeout=30):
        deadline = time.time() + timeout
        for index, message in enumerate(self.events):
            if message.get("method") == method:
                return self.events.pop(index)
        while True:
            message = self.receive(deadline)
            if message.get("method") == method:
                return message
            self.events.append(message)

    def navigate(self, url):
        self.call("Page.navigate", {"url": url}, session=self.session)
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression):
        """The value of a JavaScript expression that returns JSON text."""
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                 "awaitPromise": True}, session=self.session)
        return json.loads(result["result"]["value"])

    def screenshot(self, path):
        import base64
        shot = self.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True},
                         session=self.session)
        with open(path, "wb") as out:
            out.write(base64.b64decode(shot["data"]))

    def drain(self, seconds=0.2):
        deadline = time.time() + seconds
        try:
            while True:
                self.events.append(self.receive(deadline))
        except TimeoutError:
            pass

    def requests_and_errors(self, own=()):
        """Every URL asked for but `own`, and console errors, exceptions and error log entries (CSP)."""
        requests, errors = [], []
        for message in self.events:
            method, params = message.get("method"), message.get("params", {})
            if method == "Network.requestWillBeSent":
                request_url = params.get("request", {}).get("url", "")
                if request_url not in own:
                    requests.append(request_url)
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                errors.append("console: " + " ".join(
                    str(a.get("value", a.get("description", ""))) for a in params.get("args", [])))
            elif method == "Runtime.exceptionThrown":
                errors.append("exception: " + params.get("exceptionDetails", {}).get("text", ""))
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                errors.append("log: " + params["entry"].get("text", ""))
        return requests, errors

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, 9)
            self.process.wait()
        subprocess.run(["rm", "-rf", self.profile])
