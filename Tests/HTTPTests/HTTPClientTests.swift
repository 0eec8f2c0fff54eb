import Foundation
import HTTP
import TestSupport
import Testing

/// The libcurl client against a real HTTP server on 127.0.0.1 (Python's http.server).
struct HTTPClientTests {
    let base: String

    init() throws {
        base = try LocalServer.sharedHTTPServer().origin
    }

    /// Retries without waiting, counting the waits.
    static func client(credentials: HTTPCredentials? = nil, timeout: Duration = .seconds(10)) -> HTTPClient {
        HTTPClient(
            .init(
                credentials: credentials, timeout: timeout,
                retry: RetryPolicy(attempts: 4, initialDelay: 0.01, maximumDelay: 0.02, jitter: 0) { _ in }))
    }

    func echo(_ response: HTTPResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
    }

    @Test("a GET returns the status, the headers by lower-case name and the body")
    func get() throws {
        let response = try Self.client().send(HTTPRequest(url: base + "/a?b=1", headers: [("X-Probe", "yes")]))
        #expect(response.status == 200)
        #expect(response.headers["etag"] == "\"abc\"")
        let echo = try echo(response)
        #expect(echo["method"] as? String == "GET")
        #expect(echo["path"] as? String == "/a?b=1")
        #expect(echo["probe"] as? String == "yes")
    }

    @Test("any method carries its body as given, without waiting for 100-continue; HEAD has no body")
    func methods() throws {
        let client = Self.client()
        let body = Data(#"{"providers":[]}"#.utf8)
        for method in ["PUT", "POST", "PATCH"] {
            let echo = try echo(try client.send(HTTPRequest(method: method, url: base + "/r", body: body)))
            #expect(echo["method"] as? String == method)
            #expect(echo["body"] as? String == #"{"providers":[]}"#)
            #expect(echo["expect"] is NSNull)
            #expect(echo["contentType"] as? String == "application/octet-stream")
        }
        let empty = try echo(try client.send(HTTPRequest(method: "PUT", url: base + "/e", body: Data())))
        #expect(empty["body"] as? String == "")
        let head = try client.send(HTTPRequest(method: "HEAD", url: base + "/r"))
        #expect(head.status == 200 && head.body.isEmpty)
    }

    @Test("requests of one client reuse one connection")
    func reuse() throws {
        let client = Self.client()
        let ports = try (0..<3).map { _ in
            try #require(try echo(try client.send(HTTPRequest(url: base + "/")))["connection"] as? Int)
        }
        #expect(Set(ports).count == 1)
    }

    @Test("an error status is a response; 500s are retried until success, honouring Retry-After")
    func retries() throws {
        #expect(try Self.client().send(HTTPRequest(url: base + "/status/404")).status == 404)
        let key = UUID().uuidString
        #expect(try Self.client().send(HTTPRequest(url: base + "/flaky/\(key)/2")).status == 200)
        let stubborn = UUID().uuidString
        #expect(try Self.client().send(HTTPRequest(url: base + "/flaky/\(stubborn)/9")).status == 500)
    }

    @Test("a 429 waits as long as Retry-After says, up to the client's limit")
    func retryAfter() throws {
        let waits = TestLog()
        func client(limit: TimeInterval) -> HTTPClient {
            HTTPClient(
                .init(
                    retry: RetryPolicy(attempts: 4, initialDelay: 0.01, maximumDelay: 0.02, jitter: 0) {
                        waits.append("\($0)")
                    },
                    maximumRetryAfter: limit))
        }
        #expect(try client(limit: 10).send(HTTPRequest(url: base + "/busy/\(UUID().uuidString)/3")).status == 200)
        #expect(try client(limit: 2).send(HTTPRequest(url: base + "/busy/\(UUID().uuidString)/30")).status == 200)
        #expect(waits.entries == ["3.0", "2.0"])
    }

    @Test("credentials go as Basic auth, switch to Digest when asked, and never reach an error message")
    func credentials() throws {
        let credentials = HTTPCredentials(user: "alice", password: "s3cret-pass")
        #expect(
            try echo(try Self.client(credentials: credentials).send(HTTPRequest(url: base + "/")))["user"] as? String
                == "alice")
        let digest = try echo(try Self.client(credentials: credentials).send(HTTPRequest(url: base + "/digest")))
        #expect(digest["scheme"] as? String == "Digest")
        #expect("\(credentials)" == "credentials for 'alice'")
        do {
            _ = try Self.client(credentials: credentials).send(HTTPRequest(url: "http://bob:hunter22@127.0.0.1:1/x"))
            Issue.record("a closed port answered")
        } catch let error as HTTPError {
            #expect(error.kind == .connection)
            #expect(error.message.hasPrefix("GET http://127.0.0.1:1/x: "))
            #expect(!error.message.contains("hunter22") && !error.message.contains("s3cret"))
            #expect(!error.message.contains("\n"))
        }
    }

    @Test("a URL is shown without its userinfo, and only the authority's is removed")
    func displayURL() {
        #expect(HTTPRequest.displayURL("https://me:p%40ss@dav.example.org/a/") == "https://dav.example.org/a/")
        #expect(HTTPRequest.displayURL("https://dav.example.org/a@b/") == "https://dav.example.org/a@b/")
        #expect(HTTPRequest.displayURL("/mnt/share/aggctl") == "/mnt/share/aggctl")
    }

    @Test("redirects are followed without credentials, and not with them")
    func redirects() throws {
        #expect(try echo(try Self.client().send(HTTPRequest(url: base + "/redirect")))["path"] as? String == "/landed")
        let withCredentials = Self.client(credentials: HTTPCredentials(user: "a", password: "b"))
        #expect(try withCredentials.send(HTTPRequest(url: base + "/redirect")).status == 302)
    }

    @Test("a silent server fails at the timeout; a body over the limit is refused while it downloads")
    func limits() throws {
        let started = Date()
        do {
            _ = try Self.client(timeout: .milliseconds(300)).send(HTTPRequest(url: base + "/slow"))
            Issue.record("a silent server answered")
        } catch let error as HTTPError {
            #expect(error.kind == .timeout)
            #expect(error.message.hasPrefix("GET \(base)/slow: no answer within 0.3 s"))
        }
        #expect(Date().timeIntervalSince(started) < 3, "a timeout is not retried")
        #expect(try Self.client().send(HTTPRequest(url: base + "/big/1000", maximumBodySize: 1000)).body.count == 1000)
        #expect {
            try Self.client().send(HTTPRequest(url: base + "/big/100000", maximumBodySize: 1000))
        } throws: { error in
            (error as? HTTPError)?.kind == .bodyTooLarge(size: nil)  // no length announced: cut off at the limit
        }
    }

    @Test("a header, URL or credential with CR, LF or NUL is refused before anything is sent")
    func injectionRefused() throws {
        let trap = "/trap-\(UUID().uuidString.prefix(8))"
        let refusals: [(HTTPClient, HTTPRequest)] = [
            (Self.client(), HTTPRequest(url: base + trap, headers: [("Authorization", "Bearer a\r\nX-Evil: 1")])),
            (Self.client(), HTTPRequest(url: base + trap, headers: [("X-A\nB", "v")])),
            (Self.client(), HTTPRequest(url: base + trap + "\r\nX-Evil: 1")),
            (
                Self.client(credentials: HTTPCredentials(user: "me", password: "pw\u{0}x")),
                HTTPRequest(url: base + trap)
            ),
        ]
        for (client, request) in refusals {
            #expect {
                try client.send(request)
            } throws: { error in
                (error as? HTTPError)?.kind == .invalidRequest && !"\(error)".contains("\r")
                    && !"\(error)".contains("Bearer")
            }
        }
        let log = try Self.client().send(HTTPRequest(url: base + "/log")).body
        #expect(!String(decoding: log, as: UTF8.self).contains(trap))
    }

    @Test("a request that does not follow redirects gets the 302; one shown as its origin names only that")
    func noRedirects() throws {
        let request = HTTPRequest(
            url: base + "/redirect", followsRedirects: false, shownAs: HTTPRequest.origin(of: base))
        #expect(try Self.client().send(request).status == 302)
        #expect(request.summary == "GET \(base)")
        #expect(HTTPRequest.origin(of: "https://u:p@Hooks.Example/path?q#f") == "https://Hooks.Example")
    }

    @Test(
        "TLS certificates are verified: a private CA is refused, unless given as the CA file",
        .enabled(if: RequiredTool.available("openssl"), "openssl is not installed: run script/bootstrap"))
    func tls() throws {
        let folder = TemporaryDirectory("aggctl-tls")
        let certificate = folder.file("cert.pem")
        let key = folder.file("key.pem")
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        openssl.arguments = [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate,
        ]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        try #require(openssl.terminationStatus == 0)
        let port = LocalServer.freePort()
        let server = try LocalServer(
            ["python3", Repository.path("Tests/Servers/http_server.py"), String(port), certificate, key], port: port,
            log: folder.file("server.log"))
        let url = "https://127.0.0.1:\(server.port)/hello"
        do {
            _ = try Self.client().send(HTTPRequest(url: url))
            Issue.record("a self-signed certificate was accepted")
        } catch let error as HTTPError {
            #expect(error.kind == .tls, "\(error)")
        }
        let trusting = HTTPClient(.init(caFile: certificate, retry: .never))
        #expect(try trusting.send(HTTPRequest(url: url)).status == 200)
    }
}
