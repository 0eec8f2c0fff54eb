#!/usr/bin/env python3
"""A fault-injecting HTTP proxy for tests: forwards to a real server and breaks what it is told to.

    fault_proxy.py PORT UPSTREAM_ORIGIN [--keep-host]

Requests are forwarded to UPSTREAM_ORIGIN (http://127.0.0.1:N) with their method, path, headers and body;
a WebDAV Destination header is rewritten to the upstream's origin. Faults are rules, set through the proxy
itself (never forwarded):

  POST /__fault__/rule   {"method": "MOVE", "path": "substring", "action": ACTION, "count": N, ...}
  POST /__fault__/clear  drops every rule, and counts the peak below afresh
  GET  /__fault__/log    [{"method", "path", "action"}] of every request, with the fault applied or null
  GET  /__fault__/peak   {"peak": N}: the most requests it was handling at once

A rule matches a request by method (or "*") and a substring of its path, and applies to the next `count`
matching requests (default 1). Actions:
  drop-response      forward, wait for the upstream's answer, then close without answering (the request
                     took effect, the client never learns it)
  reset              close without forwarding (the request never reached the server)
  truncate           forward, answer with the full Content-Length but only `bytes` bytes of the body
  truncate-nolength  forward, answer without a length (Connection: close) and only `bytes` bytes
  stall              wait `seconds` (default 60), then close without answering
  status             answer `status` (default 503) without forwarding
  latency            wait `seconds`, then forward as usual
  hide-entry         forward, and remove from a PROPFIND answer each response whose href contains `entry`
                     (a record missing from one listing, as rclone and Apache show it mid-replace)
"""
import http.client
import http.server
import json
import re
import sys
import threading
import time
import urllib.parse

UPSTREAM = urllib.parse.urlsplit(sys.argv[2])
# --keep-host: the Host header goes upstream as the client sent it (an S3 request signs its Host).
KEEP_HOST = "--keep-host" in sys.argv[3:]
rules = []
log = []
lock = threading.Lock()
in_flight = 0
peak = 0


def take_rule(method, path):
    with lock:
        for rule in rules:
            if rule["method"] in ("*", method) and rule.get("path", "") in path and rule["count"] > 0:
                rule["count"] -= 1
                return rule
    return None


class Proxy(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if self.path.startswith("/__fault__/"):
            return self.control(body)
        global in_flight, peak
        with lock:
            in_flight += 1
            peak = max(peak, in_flight)
        try:
            self.proxy_request(body)
        finally:
            with lock:
                in_flight -= 1

    def proxy_request(self, body):
        rule = take_rule(self.command, self.path)
        action = rule["action"] if rule else None
        with lock:
            log.append({"method": self.command, "path": self.path, "action": action})
        if action == "reset":
            return self.drop()
        if action == "stall":
            time.sleep(rule.get("seconds", 60))
            return self.drop()
        if action == "status":
            return self.answer(rule.get("status", 503), {"Content-Type": "text/plain"}, b"fault injected")
        if action == "latency":
            time.sleep(rule.get("seconds", 1))
        status, headers, content = self.forward(body)
        if action == "drop-response":
            return self.drop()
        if action == "hide-entry":
            blocks = re.split(rb"(<[A-Za-z0-9]*:?response[ >].*?</[A-Za-z0-9]*:?response>)", content, flags=re.S)
            entry = rule["entry"].encode()
            content = b"".join(b for b in blocks if not (b"response" in b[:16] and entry in b))
        if action == "truncate":
            return self.answer(status, headers, content, send=content[: rule.get("bytes", 0)], close=True)
        if action == "truncate-nolength":
            return self.answer(status, headers, None, send=content[: rule.get("bytes", 0)], close=True)
        self.answer(status, headers, content)

    def forward(self, body):
        connection = http.client.HTTPConnection(UPSTREAM.hostname, UPSTREAM.port, timeout=120)
        headers = {name: value for name, value in self.headers.items() if name.lower() not in ("host", "connection")}
        if "Destination" in headers:
            target = urllib.parse.urlsplit(headers["Destination"])
            headers["Destination"] = urllib.parse.urlunsplit(
                (UPSTREAM.scheme, UPSTREAM.netloc, target.path, target.query, ""))
        headers["Host"] = self.headers.get("Host", UPSTREAM.netloc) if KEEP_HOST else UPSTREAM.netloc
        connection.request(self.command, self.path, body=body if body or self.command in ("PUT", "POST") else None,
                           headers=headers)
        response = connection.getresponse()
        content = response.read() if self.command != "HEAD" else b""
        kept = [(name, value) for name, value in response.getheaders()
                if name.lower() not in ("transfer-encoding", "connection", "content-length", "keep-alive")]
        connection.close()
        return response.status, kept, content

    def control(self, body):
        if self.path == "/__fault__/rule":
            rule = json.loads(body)
            rule.setdefault("count", 1)
            rule.setdefault("method", "*")
            with lock:
                rules.append(rule)
        elif self.path == "/__fault__/clear":
            global peak
            with lock:
                rules.clear()
                peak = in_flight
        elif self.path == "/__fault__/log":
            with lock:
                return self.answer(200, {"Content-Type": "application/json"}, json.dumps(log).encode())
        elif self.path == "/__fault__/peak":
            with lock:
                return self.answer(200, {"Content-Type": "application/json"}, json.dumps({"peak": peak}).encode())
        self.answer(200, {"Content-Type": "application/json"}, b"{}")

    def answer(self, status, headers, content, send=None, close=False):
        self.send_response(status)
        for name, value in headers.items() if isinstance(headers, dict) else headers:
            self.send_header(name, value)
        if content is not None:
            self.send_header("Content-Length", str(len(content)))
        if close or content is None:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(content if send is None else send)
        self.wfile.flush()

    def drop(self):
        self.close_connection = True
        try:
            self.connection.shutdown(2)
        except OSError:
            pass

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = do_PROPFIND = do_MOVE = do_MKCOL = do_OPTIONS = handle_any
    do_COPY = handle_any

    def log_message(self, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    # Room for every connection a reader opens at once (16 for an S3 store): past the default of 5, a
    # connection waits a second for its SYN to be sent again.
    request_queue_size = 64
    daemon_threads = True


server = Server(("127.0.0.1", int(sys.argv[1])), Proxy)
server.serve_forever()
