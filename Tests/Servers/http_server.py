#!/usr/bin/env python3
"""A loopback HTTP server for tests: echoes requests, and misbehaves on request.

    http_server.py PORT [CERT KEY]

With CERT and KEY (PEM files), it speaks HTTPS.

Every request is logged; GET /log answers the log as JSON ({method, path, body} per request).
Paths:
  /status/N             answers status N
  /slow                 waits 5 s before answering
  /flaky/KEY/N/...      answers 500 (Retry-After: 0) to the first N requests for KEY, then as usual
  /stall/KEY/N/...      holds the first N requests for KEY 30 s, then answers 500 (a client killed meanwhile
                        never hears back), then as usual
  /busy/KEY/SECONDS     answers 429 with Retry-After: SECONDS to the first request for KEY, then as usual
  /failing/...          always answers 500
  /big/N                N bytes without a length
  /digest               asks for Digest authentication
  /redirect             sends the client to /landed
  /usage-api/ok/E       the usage endpoint E (api/oauth/usage, backend-api/wham/usage, copilot_internal/user,
                        unlimited/copilot_internal/user): the fixture from
                        Tests/CollectorsTests/Fixtures/api when the request carries the fixture's token
                        and headers, else 401
  /usage-api/failing/E  always 500; /usage-api/garbage/E: 200 with a body that is not JSON
  /real-world/AGENT/CASE/...  answer.json of Tests/CollectorsTests/RealWorld/AGENT/CASE (names of
                        [a-z0-9-] only), whatever the rest of the path: a usage endpoint's answer as another
                        project's test asserts it
  PROPFIND on .../garbage/...  a 207 whose body is not XML
  PROPFIND on .../hostile/...  a 207 listing good.json beside entries outside the collection: ../x.json,
                        a subfolder's file, an encoded slash, the same path on another host
  PROPFIND on .../gzip/...  a 207 listing box.json, sized as stored compressed; GET .../gzip/box.json
                        answers the record gzip-compressed with Content-Encoding: gzip (an S3 or WebDAV
                        object uploaded compressed)
  PROPFIND otherwise    a 207 multistatus listing only the collection itself (an empty store)
  GET /s3-hostile/?list-type=2...  an S3 listing of prefix team/ with good.json beside keys outside it
                        (other/x.json, team/../escaped.json, team/sub/inner.json, a control character)
  GET /s3-looping/?list-type=2...  a truncated S3 listing whose next token is always the same
  POST .../ntfy/TOPIC     ntfy's publish protocol (docs.ntfy.sh/publish), checked as ntfy checks it: a topic of
                        1-64 of [-_A-Za-z0-9], Priority 1-5 (or its names), a Title of printable ASCII
                        (RFC 2047 words decoded), a non-empty UTF-8 body; 400 with ntfy's error JSON else
  POST .../slack/...    Slack's incoming webhook: application/json {"text": non-empty, with &, < and >
                        escaped as Slack asks}; 200 "ok", else 400 "invalid_payload" or "no_text"
  POST .../discord/...  Discord's execute webhook: application/json {"content": 1-2000 characters,
                        "allowed_mentions": {"parse": []}}; 204, else 400 with Discord's error JSON
Each of the three logs what it read ("decoded": title, message, priority, tags, text or content).
Anything else answers 200 with a JSON echo of the request.
"""
import base64
import gzip
import http.server
import json
import os
import re
import sys
import threading
import time

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "CollectorsTests", "Fixtures", "api")
REAL_WORLD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "CollectorsTests", "RealWorld")
ENDPOINTS = {
    "api/oauth/usage": ("claude-oauth-usage.json", {
        "Authorization": "Bearer sk-ant-oat01-EXAMPLE-NOT-A-REAL-TOKEN", "anthropic-beta": "oauth-2025-04-20"}),
    "backend-api/wham/usage": ("codex-wham-usage.json", {
        "Authorization": "Bearer redacted-access", "ChatGPT-Account-Id": "ea7b5bf5-5eb5-61a4-2163-63698b529b4a"}),
    "copilot_internal/user": ("copilot-user.json", {"Authorization": "token gho_EXAMPLE_NOT_A_REAL_TOKEN"}),
    "unlimited/copilot_internal/user": ("copilot-user-unlimited.json", {"Authorization": "token gho_EXAMPLE_NOT_A_REAL_TOKEN"}),
}
counts = {}
log = []
lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        parts = self.path.split("/")
        if self.path == "/log":
            with lock:
                return self.answer(200, json.dumps(log).encode())
        with lock:
            log.append({"method": self.command, "path": self.path, "body": body.decode("utf-8", "replace"),
                        "idempotencyKey": self.headers.get("Idempotency-Key"),
                        "authorization": self.headers.get("Authorization"),
                        "headers": sorted(self.headers.keys())})
        if self.path == "/slow":
            time.sleep(5)
        if self.path.startswith("/big/"):
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b"x" * int(parts[2]))
            return
        if self.path.startswith("/usage-api/"):
            scenario, endpoint = parts[2], "/".join(parts[3:])
            if scenario == "failing":
                return self.answer(500, b"internal error")
            if scenario == "garbage":
                return self.answer(200, b"<html>maintenance</html>")
            fixture, expected = ENDPOINTS[endpoint]
            if any(self.headers.get(name) != value for name, value in expected.items()):
                return self.answer(401, b'{"error": "unauthorized"}')
            with open(os.path.join(FIXTURES, fixture), "rb") as f:
                return self.answer(200, f.read())
        if self.path.startswith("/real-world/"):
            names = parts[2:4]
            if len(names) != 2 or not all(re.fullmatch(r"[a-z0-9-]+", name) for name in names):
                return self.answer(404, b"no such case")
            try:
                with open(os.path.join(REAL_WORLD, names[0], names[1], "answer.json"), "rb") as f:
                    return self.answer(200, f.read())
            except FileNotFoundError:
                return self.answer(404, b"no such case")
        if self.path == "/litellm-prices":
            # Three entries of LiteLLM's table as its file has them (litellm 1.110.2 on PyPI), its
            # sample_spec (strings where prices go) among them.
            with open(os.path.join(FIXTURES, "litellm-prices.json"), "rb") as f:
                return self.answer(200, f.read())
        if self.path.startswith("/status/"):
            return self.answer(int(parts[2]), b"{}")
        if self.path.startswith("/failing/"):
            return self.answer(500, b"internal error")
        if self.path.startswith("/busy/"):
            with lock:
                counts[parts[2]] = counts.get(parts[2], 0) + 1
                first = counts[parts[2]] == 1
            if first:
                return self.answer(429, b"slow down", {"Retry-After": parts[3]})
        if self.path.startswith("/stall/"):
            with lock:
                counts[parts[2]] = counts.get(parts[2], 0) + 1
                stalled = counts[parts[2]] <= int(parts[3])
            if stalled:
                time.sleep(30)
                return self.answer(500, b"stalled")
        if self.path.startswith("/flaky/"):
            with lock:
                counts[parts[2]] = counts.get(parts[2], 0) + 1
                failing = counts[parts[2]] <= int(parts[3])
            if failing:
                return self.answer(500, b"try later", {"Retry-After": "0"})
        for service in ("ntfy", "slack", "discord"):
            if f"/{service}/" in self.path and self.command == "POST":
                status, answer, decoded = getattr(self, service)(parts, body)
                with lock:
                    log[-1]["decoded"] = decoded
                return self.answer(status, answer, {"Content-Type": "text/plain"} if service == "slack" else None)
        if self.path == "/redirect":
            return self.answer(302, b"", {"Location": "/landed"})
        auth = self.headers.get("Authorization", "")
        if self.path == "/digest" and not auth.startswith("Digest "):
            return self.answer(401, b"", {"WWW-Authenticate": 'Digest realm="echo", nonce="abc", qop="auth"'})
        if self.command == "GET" and "list-type=2" in self.path and self.path.startswith(("/s3-hostile/", "/s3-looping/")):
            keys = ["team/good.json", "other/x.json", "team/../escaped.json", "team/sub/inner.json",
                    "team/bell&#7;.json", "teamwork.json", "team/.hidden.json"]
            contents = "".join("<Contents><Key>%s</Key><ETag>&quot;e%d&quot;</ETag><Size>10</Size>"
                               "<LastModified>2026-12-01T12:00:00.000Z</LastModified></Contents>" % (key, n)
                               for n, key in enumerate(keys))
            looping = self.path.startswith("/s3-looping/")
            more = "<IsTruncated>true</IsTruncated><NextContinuationToken>again</NextContinuationToken>" if looping \
                else "<IsTruncated>false</IsTruncated>"
            listing = ('<?xml version="1.0" encoding="UTF-8"?><ListBucketResult '
                       'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Prefix>team/</Prefix>%s%s</ListBucketResult>'
                       % (more, contents))
            return self.answer(200, listing.encode(), {"Content-Type": "application/xml"})
        gzip_record = gzip.compress(json.dumps({
            "schemaVersion": 1, "deviceID": "box", "deviceName": "box", "generatedAt": "2026-11-30T11:00:00Z",
            "providers": [{"providerID": "claude", "accountEmail": "zip@x.test", "lastUpdated": "2026-11-30T11:00:00Z",
                           "session": {"usedPercent": 25, "windowMinutes": 300}}]}).encode(), mtime=0)
        if self.command == "GET" and "/gzip/" in self.path and self.path.endswith("/box.json"):
            return self.answer(200, gzip_record, {"Content-Type": "application/json", "Content-Encoding": "gzip",
                                                  "ETag": '"z1"'})
        if self.command == "PROPFIND":
            if "/gzip/" in self.path:
                base = self.path if self.path.endswith("/") else self.path + "/"
                entries = ('<D:response><D:href>%s</D:href><D:propstat><D:prop><D:resourcetype><D:collection/>'
                           '</D:resourcetype></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>'
                           '<D:response><D:href>%sbox.json</D:href><D:propstat><D:prop><D:resourcetype/>'
                           '<D:getcontentlength>%d</D:getcontentlength><D:getetag>"z1"</D:getetag></D:prop>'
                           '<D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>' % (base, base, len(gzip_record)))
                listing = '<?xml version="1.0"?><D:multistatus xmlns:D="DAV:">%s</D:multistatus>' % entries
                return self.answer(207, listing.encode(), {"Content-Type": "application/xml"})
            if "/garbage/" in self.path:
                return self.answer(207, b"<multistatus this is <<not XML", {"Content-Type": "application/xml"})
            if "/hostile/" in self.path:
                base = self.path if self.path.endswith("/") else self.path + "/"
                hrefs = [base, base + "good.json", base + "../escaped.json", base + "sub/inner.json",
                         base + "a%2Fb.json", "http://elsewhere.test" + base + "other.json",
                         "http://127.0.0.1:%d%sfull.json" % (self.server.server_port, base)]
                entries = "".join(
                    '<D:response><D:href>%s</D:href><D:propstat><D:prop><D:resourcetype/>'
                    '<D:getcontentlength>10</D:getcontentlength><D:getetag>"e%d"</D:getetag></D:prop>'
                    '<D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>' % (href, n)
                    for n, href in enumerate(hrefs))
                listing = '<?xml version="1.0"?><D:multistatus xmlns:D="DAV:">%s</D:multistatus>' % entries
                return self.answer(207, listing.encode(), {"Content-Type": "application/xml"})
            listing = ('<?xml version="1.0"?><D:multistatus xmlns:D="DAV:"><D:response><D:href>%s</D:href>'
                       '<D:propstat><D:prop><D:resourcetype><D:collection/></D:resourcetype></D:prop>'
                       '<D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response></D:multistatus>' % self.path)
            return self.answer(207, listing.encode(), {"Content-Type": "application/xml"})
        user = base64.b64decode(auth[6:]).decode().split(":")[0] if auth.startswith("Basic ") else None
        echo = {"method": self.command, "path": self.path, "user": user,
                "scheme": auth.split(" ")[0] if auth else None, "body": body.decode("utf-8", "replace"),
                "contentType": self.headers.get("Content-Type"), "expect": self.headers.get("Expect"),
                "probe": self.headers.get("X-Probe"), "connection": self.client_address[1]}
        self.answer(200, json.dumps(echo).encode(), {"Etag": '"abc"'})

    def ntfy(self, parts, body):
        """ntfy's answer: status, body, and what it read (None when it refused the request)."""
        import email.header
        topic = parts[-1]
        if not re.fullmatch(r"[-_A-Za-z0-9]{1,64}", topic):
            return 400, b'{"code":40009,"http":400,"error":"invalid topic"}', None
        priority = self.headers.get("Priority", "3")
        if priority not in ("1", "2", "3", "4", "5", "min", "low", "default", "high", "max", "urgent"):
            return 400, b'{"code":40007,"http":400,"error":"invalid priority"}', None
        title = self.headers.get("Title", "")
        if any(ord(c) < 0x20 or ord(c) > 0x7E for c in title):
            return 400, b'{"code":40000,"http":400,"error":"title is not printable ASCII"}', None
        try:
            title = str(email.header.make_header(email.header.decode_header(title)))
            message = body.decode("utf-8")
        except (UnicodeDecodeError, LookupError, ValueError):
            return 400, b'{"code":40000,"http":400,"error":"undecodable"}', None
        if not message:
            return 400, b'{"code":40000,"http":400,"error":"empty message"}', None
        decoded = {"title": title, "message": message, "priority": priority,
                   "tags": self.headers.get("Tags", ""), "authorization": self.headers.get("Authorization")}
        return 200, json.dumps({"id": "m1", "event": "message", "topic": topic, "title": title,
                                "message": message}).encode(), decoded

    def slack(self, parts, body):
        if not (self.headers.get("Content-Type") or "").startswith("application/json"):
            return 400, b"invalid_payload", None
        try:
            payload = json.loads(body)
        except ValueError:
            return 400, b"invalid_payload", None
        text = payload.get("text") if isinstance(payload, dict) else None
        if not isinstance(text, str) or not text:
            return 400, b"no_text", None
        # Slack asks for &, < and > to be escaped: a bare one starts a link or a mention.
        if "<" in text or ">" in text or re.search(r"&(?!amp;|lt;|gt;)", text):
            return 400, b"invalid_payload", None
        return 200, b"ok", {"text": text}

    def discord(self, parts, body):
        if not (self.headers.get("Content-Type") or "").startswith("application/json"):
            return 400, b'{"message": "Cannot send an empty message", "code": 50006}', None
        try:
            payload = json.loads(body)
        except ValueError:
            return 400, b'{"message": "The request body contains invalid JSON.", "code": 50109}', None
        content = payload.get("content") if isinstance(payload, dict) else None
        if not isinstance(content, str) or not (1 <= len(content) <= 2000):
            return 400, b'{"message": "Invalid Form Body", "code": 50035}', None
        if payload.get("allowed_mentions") != {"parse": []}:
            return 400, b'{"message": "aggctl must not mention anyone", "code": 50035}', None
        return 204, b"", {"content": content}

    def answer(self, status, body, headers=None):
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if "Content-Type" not in (headers or {}):
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(0 if self.command == "HEAD" else len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = do_PROPFIND = do_MOVE = do_MKCOL = do_PATCH = handle_any

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
if len(sys.argv) == 4:
    import ssl
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[2], sys.argv[3])
    server.socket = context.wrap_socket(server.socket, server_side=True)
server.serve_forever()
