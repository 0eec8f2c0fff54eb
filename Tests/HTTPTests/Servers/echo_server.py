#!/usr/bin/env python3
"""A loopback HTTP server for the HTTP client tests: answers every method with what it received.

    echo_server.py PORT

/status/N answers with status N; /slow waits 5 s before answering; /flaky/KEY/N answers 503 (with
Retry-After: 0) to the first N requests for KEY, then 200; /big/N sends N bytes without a length;
/digest asks for Digest authentication; /redirect sends the client to /landed.
"""
import base64
import http.server
import json
import sys
import threading
import time

counts = {}
lock = threading.Lock()


class Echo(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        parts = self.path.split("/")
        if self.path == "/slow":
            time.sleep(5)
        if self.path.startswith("/big/"):
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b"x" * int(parts[2]))
            return
        status, extra = 200, {}
        if self.path.startswith("/status/"):
            status = int(parts[2])
        elif self.path.startswith("/flaky/"):
            with lock:
                counts[parts[2]] = counts.get(parts[2], 0) + 1
                if counts[parts[2]] <= int(parts[3]):
                    status, extra = 503, {"Retry-After": "0"}
        elif self.path == "/redirect":
            status, extra = 302, {"Location": "/landed"}
        auth = self.headers.get("Authorization", "")
        if self.path == "/digest" and not auth.startswith("Digest "):
            status, extra = 401, {"WWW-Authenticate": 'Digest realm="echo", nonce="abc", qop="auth"'}
        user = base64.b64decode(auth[6:]).decode().split(":")[0] if auth.startswith("Basic ") else None
        answer = json.dumps({"method": self.command, "path": self.path, "user": user,
                             "scheme": auth.split(" ")[0] if auth else None,
                             "body": body.decode("utf-8", "replace"),
                             "contentType": self.headers.get("Content-Type"),
                             "expect": self.headers.get("Expect"), "probe": self.headers.get("X-Probe"),
                             "connection": self.client_address[1]}).encode()
        self.send_response(status)
        for name, value in extra.items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Etag", '"abc"')
        self.send_header("Content-Length", str(0 if self.command == "HEAD" else len(answer)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(answer)

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = do_PROPFIND = do_MOVE = handle_any

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Echo)
server.serve_forever()
