import Foundation
import Snapshots
import TestSupport
import Testing

/// `aggctl serve` through the shipped binary and a real client (curl), stopped with real signals.
struct ServeEndToEndTests {
    var root = TemporaryDirectory("aggctl-serve")
    var environment: [String: String] {
        ["HOME": root.file("home"), "XDG_STATE_HOME": root.file("state"), "PATH": "/usr/bin:/bin"]
    }

    func publish(_ device: String, used: Double, at: String = "2026-11-30T11:50:00Z") throws {
        let entry = Records.entry(
            "claude", email: "\(device)@example.com", at: at, sessionUsed: used, resetsAt: "2026-11-30T15:00:00Z")
        try root.write("store/\(device).json", Records.json(Records.snapshot(device, generatedAt: at, [entry])))
    }

    /// A running `serve`, and the origin it answers on.
    final class Server {
        let process: Process
        let origin: String
        init(process: Process, origin: String) {
            self.process = process
            self.origin = origin
        }
        deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    }

    func text(_ name: String) -> String { (try? String(contentsOfFile: root.file(name), encoding: .utf8)) ?? "" }

    func waitFor(_ seconds: TimeInterval, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }

    /// Starts `aggctl serve` on a free loopback port; returns once it says where it listens.
    func serve(_ arguments: [String], extra: [String: String] = [:], binary: String = BinaryRun.binary) throws
        -> Server
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve", "--store", root.file("store"), "--listen", "127.0.0.1:0"] + arguments
        process.environment = environment.merging(extra) { $1 }
        _ = FileManager.default.createFile(atPath: root.file("err"), contents: nil)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: root.file("err")))
        try process.run()
        var origin = ""
        _ = waitFor(30) {
            guard let range = text("err").range(of: #"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression) else {
                return !process.isRunning
            }
            origin = String(text("err")[range])
            return true
        }
        try #require(!origin.isEmpty, "serve did not start: \(text("err"))")
        return Server(process: process, origin: origin)
    }

    /// curl's answer: the status code, the headers, the body.
    func curl(_ arguments: [String]) throws -> (code: Int, headers: String, body: String) {
        let run = try BinaryRun.run(
            ["-s", "-D", root.file("headers"), "-w", "\n%{http_code}", "--max-time", "20"] + arguments,
            environment: environment, executable: "/usr/bin/curl")
        let lines = run.output.split(separator: "\n", omittingEmptySubsequences: false)
        let code = Int(lines.last ?? "") ?? 0
        return (code, text("headers"), lines.dropLast().joined(separator: "\n"))
    }

    @Test(
        "serve answers status --json, the metrics, the page and health from one merge; tags give 304; SIGTERM ends it",
        .enabled(if: RequiredTool.available("curl")))
    func answers() throws {
        try publish("laptop", used: 42)
        let server = try serve(["--now", "2026-11-30T12:00:00Z"])
        let status = try curl([server.origin + "/api/status"])
        #expect(status.code == 200)
        let direct = try BinaryRun.run(
            ["status", "--store", root.file("store"), "--json", "--now", "2026-11-30T12:00:00Z"],
            environment: environment)
        #expect(status.body == direct.output, "the same document as status --json")
        let tag = try #require(
            status.headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("etag:") }?.dropFirst(6))
        #expect(try curl(["-H", "If-None-Match: \(tag)", server.origin + "/api/status"]).code == 304)
        let metrics = try curl([server.origin + "/metrics"])
        #expect(metrics.code == 200 && metrics.body.contains(#"aggctl_quota_used_ratio{provider="claude""#))
        let page = try curl([server.origin + "/"])
        #expect(page.code == 200 && page.body.contains("laptop@example.com"))
        #expect(page.headers.contains("Content-Security-Policy: default-src 'none'"))
        #expect(try curl([server.origin + "/healthz"]).body.hasPrefix("ok"))
        #expect(try curl(["-X", "POST", "-d", "x", server.origin + "/api/status"]).code == 405)
        #expect(try curl(["-X", "DELETE", server.origin + "/"]).code == 405)
        #expect(try curl([server.origin + "/../../etc/passwd", "--path-as-is"]).code == 404)
        let head = try curl(["-I", server.origin + "/metrics"])
        #expect(head.code == 200 && !head.body.contains("# HELP"), "headers only")
        kill(server.process.processIdentifier, SIGTERM)
        #expect(waitFor(10) { !server.process.isRunning })
        server.process.waitUntilExit()
        #expect(server.process.terminationStatus == 0)
    }

    @Test(
        "the dashboard shows the ledger's last 30 days under its live part",
        .enabled(if: RequiredTool.available("curl")))
    func spending() throws {
        let logs = root.file("claude")
        try FileManager.default.copyItem(
            atPath: Repository.path("Tests/CollectorsTests/RealWorld/claude/long-prompt-sonnet"), toPath: logs)
        let published = try BinaryRun.run(
            [
                "publish", "--store", root.file("store"), "--device-id", "laptop", "--source", "claude:\(logs)",
                "--now",
                "2026-11-30T12:00:00Z",
            ], environment: environment)
        #expect(published.status == 0, "\(published.errors)")
        let server = try serve(["--now", "2026-11-30T12:00:00Z"], extra: ["TZ": "UTC"])
        let page = try curl([server.origin + "/"])
        #expect(page.code == 200)
        // The corpus case's $1.4355 (Anthropic's long-context rates), in the spending part.
        #expect(page.body.contains("<section class=\"spending\"><h2>Spending</h2>"))
        #expect(page.body.contains("in UTC: $1.44"), "\(page.body.prefix(400))")
        kill(server.process.processIdentifier, SIGTERM)
        server.process.waitUntilExit()
    }

    @Test(
        "with a token file: no token, a wrong one and the right one; never shown; off loopback it is required",
        .enabled(if: RequiredTool.available("curl")))
    func token() throws {
        try publish("laptop", used: 42)
        let token = "s3cret-token-\(UUID().uuidString)"
        try root.write("token", token + "\n")
        chmod(root.file("token"), 0o600)
        let server = try serve(["--token-file", root.file("token")])
        #expect(try curl([server.origin + "/api/status"]).code == 401)
        let shell = try curl([server.origin + "/"])
        #expect(shell.code == 200 && shell.body.contains("id=\"token\"") && !shell.body.contains("example.com"))
        #expect(
            try curl(["-H", "Authorization: Bearer nope-nope-nope-nope", server.origin + "/api/status"]).code == 401)
        let right = try curl(["-H", "Authorization: Bearer \(token)", server.origin + "/api/status"])
        #expect(right.code == 200 && right.body.contains("laptop@example.com"))
        kill(server.process.processIdentifier, SIGTERM)
        #expect(waitFor(10) { !server.process.isRunning })
        #expect(!text("err").contains(token))

        let open = try BinaryRun.run(
            ["serve", "--store", root.file("store"), "--listen", "0.0.0.0:0"], environment: environment)
        #expect(open.status == 2)
        #expect(open.errors.contains("reachable from other machines: give --token-file"))
        chmod(root.file("token"), 0o644)
        let loose = try BinaryRun.run(
            ["serve", "--store", root.file("store"), "--listen", "127.0.0.1:0", "--token-file", root.file("token")],
            environment: environment)
        #expect(loose.status == 1 && loose.errors.contains("chmod 600 it first") && !loose.errors.contains(token))
        // A machine without libmicrohttpd: one line saying what to install.
        let without = try BinaryRun.run(
            ["serve", "--store", root.file("store"), "--listen", "127.0.0.1:0"],
            environment: environment.merging(["AGGCTL_LIBMICROHTTPD": root.file("none/libmicrohttpd.so.12")]) { $1 })
        #expect(without.status == 1 && without.errors.contains("apt install libmicrohttpd12"), "\(without.errors)")
        #expect(without.errors.split(separator: "\n").count == 1)
        let bad = try BinaryRun.run(
            ["serve", "--store", root.file("store"), "--listen", "example.com:80"], environment: environment)
        #expect(bad.status == 2 && bad.errors.contains("--listen: 'example.com:80'"))
    }

    @Test(
        "a store that cannot be read is 503 on /healthz and said once; when it can be read again, health is back",
        .enabled(if: RequiredTool.available("curl")))
    func storeAwayAndBack() throws {
        let server = try serve(["--refresh", "1"])
        defer { kill(server.process.processIdentifier, SIGTERM) }
        #expect(waitFor(20) { (try? curl([server.origin + "/healthz"]).body.contains("does not exist")) == true })
        #expect(try curl([server.origin + "/healthz"]).code == 503)
        try publish("laptop", used: 42)
        #expect(waitFor(20) { (try? curl([server.origin + "/healthz"]).code) == 200 })
        #expect(try curl([server.origin + "/api/status"]).body.contains("laptop@example.com"))
        let log = text("err")
        #expect(log.components(separatedBy: "does not exist").count == 2, "said once: \(log)")
        #expect(log.contains("the store can be read again"))
    }

    @Test(
        "the store is read once per --refresh: a record published meanwhile shows at the next read",
        .enabled(if: RequiredTool.available("curl")))
    func refresh() throws {
        try publish("laptop", used: 42)
        let server = try serve(["--refresh", "1"])
        #expect(try curl([server.origin + "/api/status"]).body.contains("laptop@example.com"))
        try publish("desktop", used: 10, at: "2026-11-30T11:55:00Z")
        #expect(
            waitFor(20) { (try? curl([server.origin + "/api/status"]).body.contains("desktop@example.com")) == true })
        kill(server.process.processIdentifier, SIGTERM)
    }

    @Test(
        "a real Prometheus server scrapes /metrics with the bearer token, and its query API returns an aggctl series",
        .enabled(if: RequiredTool.available("prometheus") && RequiredTool.available("curl")))
    func prometheusScrapes() throws {
        try publish("laptop", used: 42)
        let token = "prometheus-token-0123456789"
        try root.write("token", token + "\n")
        chmod(root.file("token"), 0o600)
        let server = try serve(["--token-file", root.file("token"), "--refresh", "1", "--now", "2026-11-30T12:00:00Z"])
        defer { kill(server.process.processIdentifier, SIGTERM) }
        let target = server.origin.replacingOccurrences(of: "http://", with: "")
        try root.write(
            "prometheus.yml",
            """
            global: {scrape_interval: 1s, evaluation_interval: 1s}
            scrape_configs:
              - job_name: aggctl
                authorization: {credentials_file: '\(root.file("token"))'}
                static_configs: [{targets: ['\(target)']}]

            """)
        let port = LocalServer.freePort()
        let prometheus = try LocalServer(
            [
                "/usr/bin/prometheus", "--config.file=\(root.file("prometheus.yml"))",
                "--storage.tsdb.path=\(root.file("tsdb"))", "--web.listen-address=127.0.0.1:\(port)",
            ], port: port, log: root.file("prometheus.log"))
        defer { prometheus.stop() }
        let query = prometheus.origin + "/api/v1/query?query=aggctl_quota_used_ratio"
        var answer = ""
        let found = waitFor(60) {
            answer = (try? curl([query]).body) ?? ""
            return answer.contains(#""account":"laptop@example.com""#)
        }
        #expect(found, "\(answer)\n\(text("prometheus.log").suffix(2000))")
        #expect(answer.contains(#""job":"aggctl""#) && answer.contains("0.42"))
        let up = try curl([prometheus.origin + "/api/v1/query?query=up"]).body
        #expect(up.contains(#""value":["#) && up.contains(#","1"]"#), "scraped with the token: \(up)")
    }

    @Test(
        "1 MB of headers, 500 idle connections and a byte a second are refused or cut off; the page answers throughout",
        .enabled(if: RequiredTool.available("python3")))
    func abuse() throws {
        try publish("laptop", used: 42)
        let server = try serve([], extra: ["AGGCTL_SERVE_TIMEOUT": "2"])
        defer { kill(server.process.processIdentifier, SIGTERM) }
        let port = server.origin.split(separator: ":").last.map(String.init) ?? ""
        let run = try BinaryRun.run(
            [Repository.path("Tests/Serve/abuse.py"), "127.0.0.1", port, "2"], environment: environment,
            executable: "/usr/bin/python3", timeout: 120)
        try #require(run.status == 0, "abuse.py failed: \(run.errors)")
        let found = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        let headers = found["headers"] as? [String: Any]
        #expect(headers?["answer"] as? String == "HTTP/1.1 431 Request Header Fields Too Large")
        #expect(headers?["closed"] as? Bool == true)
        let idle = found["idle"] as? [String: Any]
        let refused = idle?["refusedAtOnce"] as? Int ?? 0
        let timedOut = idle?["timedOut"] as? Int ?? 0
        #expect(refused >= 500 - 64 && refused + timedOut == 500, "\(idle ?? [:])")
        let slow = try #require(found["slow"] as? Double, "a byte a second was never cut off")
        #expect(slow <= 2 + 3, "cut off after \(slow) s")
        let probes = found["probes"] as? [[Int]] ?? []
        #expect(probes.count >= 5 && probes.allSatisfy { $0[0] == 200 && $0[1] < 1000 }, "\(probes)")
    }
}
