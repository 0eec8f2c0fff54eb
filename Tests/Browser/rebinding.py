#!/usr/bin/env python3
"""A DNS rebinding attack on `aggctl serve`, as a web page mounts one: the page is loaded from
http://evil.test:PORT/ while that name points at an attacker's server, then the server behind the name
becomes `aggctl serve` (the name is rebound), and the page's script reads /api/status from its own origin.

    rebinding.py CHROMIUM AGGCTL STORE [SERVE ARGUMENT ...]

Chromium resolves evil.test to 127.0.0.1 throughout (--host-resolver-rules); the attacker's server is a
Python HTTP server on 127.0.0.1:PORT, stopped before serve starts on the same port. Prints one JSON
object: what the page's last fetch of /api/status got ({"status", "text"}, or {"error"}), and whether the
page loaded at all.
"""
import http.server, json, os, re, socket, subprocess, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from devtools import Browser

chromium, aggctl, store, extra = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]

PAGE = b"""<!doctype html><title>cats</title><script>
setInterval(async () => {
  try {
    const answer = await fetch('/api/status', {cache: 'no-store'});
    window.got = {status: answer.status, text: await answer.text()};
  } catch (error) { window.got = {error: String(error)}; }
}, 200);
</script>"""


class Attacker(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        # Only the page: its fetches that reach this server before serve takes the port get 404, which the
        # wait below passes over, so no answer of the attacker's is taken for serve's.
        if self.path != "/":
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.send_header("Connection", "close")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(PAGE)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *arguments):
        pass


probe = socket.socket()
probe.bind(("127.0.0.1", 0))
port = probe.getsockname()[1]
probe.close()
attacker = http.server.HTTPServer(("127.0.0.1", port), Attacker)
threading.Thread(target=attacker.serve_forever, daemon=True).start()

browser = Browser(chromium, 800, 600, extra_flags=["--host-resolver-rules=MAP evil.test 127.0.0.1"])
server = None
try:
    browser.navigate(f"http://evil.test:{port}/")
    loaded = browser.evaluate("JSON.stringify(document.title)") == "cats"
    attacker.shutdown()
    attacker.server_close()
    server = subprocess.Popen([aggctl, "serve", "--store", store, "--listen", f"127.0.0.1:{port}", *extra],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    got = None
    deadline = time.time() + 30
    while time.time() < deadline:
        got = browser.evaluate("JSON.stringify(window.got || null)")
        # The attacker's server is gone: until serve answers, fetches fail or find nothing merged yet.
        if got and got.get("status") not in (None, 404, 503):
            break
        time.sleep(0.2)
    print(json.dumps({"loaded": loaded, "got": got}))
finally:
    if server:
        server.terminate()
        server.wait(timeout=10)
    browser.close()
