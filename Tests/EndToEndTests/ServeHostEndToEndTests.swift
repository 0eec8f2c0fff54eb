import Foundation
import TestSupport
import Testing

/// `serve` answers only for its own names: a page that rebinds its name to 127.0.0.1 reads nothing.
struct ServeHostEndToEndTests {
    let serving = ServeEndToEndTests()

    @Test(
        "a request for another name is 421 and holds nothing; the listen address, localhost and --allow-host are answered",
        .enabled(if: RequiredTool.available("curl")))
    func names() throws {
        try serving.publish("laptop", used: 42)
        let server = try serving.serve(
            ["--now", "2026-11-30T12:00:00Z", "--allow-host", "dash.example.org"], binary: ReleaseBuild.binary)
        defer { kill(server.process.processIdentifier, SIGTERM) }
        let port = server.origin.split(separator: ":").last.map(String.init) ?? ""
        try #require(serving.waitFor(30) { (try? serving.curl([server.origin + "/healthz"]).code) == 200 })
        for path in ["/api/status", "/", "/metrics", "/healthz", "/dashboard.js"] {
            let evil = try serving.curl(["-H", "Host: evil.example:\(port)", server.origin + path])
            #expect(evil.code == 421, "\(path)")
            #expect(!evil.body.contains("laptop"), "\(path) holds nothing of the store")
        }
        #expect(
            try serving.curl(["-H", "Host: localhost", server.origin + "/api/status"]).code == 421, "no port is 80")
        #expect(try serving.curl(["-H", "Host: localhost:\(port)", server.origin + "/api/status"]).code == 200)
        let proxied = try serving.curl(["-H", "Host: dash.example.org", server.origin + "/api/status"])
        #expect(proxied.code == 200 && proxied.body.contains("laptop@example.com"))
        let bad = try BinaryRun.run(
            ["serve", "--store", serving.root.file("store"), "--allow-host", "dash.example.org:443"],
            environment: serving.environment)
        #expect(bad.status == 2)
        #expect(bad.errors.contains("--allow-host: 'dash.example.org:443' is not a host name"), "\(bad.errors)")
    }

    func rebind(_ arguments: [String]) throws -> [String: Any] {
        let browser = try #require(ReportBrowserTests.chromium, "missing under CI: \(ReportBrowserTests.reason)")
        try serving.publish("laptop", used: 42)
        let home = TemporaryDirectory("aggctl-chromium-home")
        let run = try BinaryRun.run(
            [Repository.path("Tests/Browser/rebinding.py"), browser, ReleaseBuild.binary, serving.root.file("store")]
                + arguments,
            environment: serving.environment.merging(["HOME": home.path]) { $1 }, executable: "/usr/bin/python3",
            timeout: 120)
        try #require(run.status == 0, "rebinding.py failed: \(run.errors)")
        let found = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(found["loaded"] as? Bool == true, "the attacker's page loaded")
        return try #require(found["got"] as? [String: Any], "the page's script never fetched: \(found)")
    }

    @Test(
        "a page on a name rebound to 127.0.0.1 reads nothing from /api/status; the same page on an allowed name would",
        .enabled(if: ReportBrowserTests.runs, "\(ReportBrowserTests.reason)"))
    func rebinding() throws {
        let refused = try rebind(["--now", "2026-11-30T12:00:00Z"])
        #expect(refused["status"] as? Int == 421, "\(refused)")
        #expect(!(refused["text"] as? String ?? "").contains("laptop"))
        // The attack is real: a server that answered any name would give the page everything.
        let allowed = try rebind(["--now", "2026-11-30T12:00:00Z", "--allow-host", "evil.test"])
        #expect(allowed["status"] as? Int == 200, "\(allowed)")
        #expect((allowed["text"] as? String ?? "").contains("laptop@example.com"))
    }
}

/// The dashboard's token form with scripts off: pressing Enter sends the token nowhere.
struct TokenFormBrowserTests {
    let serving = ServeEndToEndTests()

    @Test(
        "with scripts off, typing the token and pressing Enter puts it in no URL and no request",
        .enabled(if: ReportBrowserTests.runs, "\(ReportBrowserTests.reason)"))
    func scriptsOff() throws {
        let browser = try #require(ReportBrowserTests.chromium, "missing under CI: \(ReportBrowserTests.reason)")
        try serving.publish("laptop", used: 42)
        let token = "form-token-0123456789abcdef"
        try serving.root.write("token", token + "\n")
        chmod(serving.root.file("token"), 0o600)
        let server = try serving.serve(["--token-file", serving.root.file("token")], binary: ReleaseBuild.binary)
        defer { kill(server.process.processIdentifier, SIGTERM) }
        let home = TemporaryDirectory("aggctl-chromium-home")
        let run = try BinaryRun.run(
            [Repository.path("Tests/Browser/token_form.py"), browser, server.origin + "/", token],
            environment: ["PATH": "/usr/bin:/bin", "HOME": home.path], executable: "/usr/bin/python3", timeout: 90)
        try #require(run.status == 0, "token_form.py failed: \(run.errors)")
        let found = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(found["form"] as? Bool == true, "the shell shows the form without scripts")
        let history = found["history"] as? [String] ?? ["?"]
        #expect(history.allSatisfy { !$0.contains(token) && !$0.contains("token=") }, "\(history)")
        let sent = found["sent"] as? [[String: String]] ?? []
        #expect(
            sent.allSatisfy { !($0["url"] ?? "").contains(token) && !($0["body"] ?? "").contains(token) }, "\(sent)")
    }
}
