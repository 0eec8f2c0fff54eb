import Foundation
import HTTP
import Snapshots
import TestSupport
import Testing

/// `export --format prometheus` checked by the real tools: promtool lints it, node_exporter serves it.
struct PrometheusEndToEndTests {
    let root = TemporaryDirectory("aggctl-prometheus")
    var environment: [String: String] {
        ["HOME": root.file("home"), "XDG_STATE_HOME": root.file("state"), "PATH": "/usr/bin:/bin"]
    }
    static let missing = ["promtool", "prometheus-node-exporter"].filter { !RequiredTool.available($0) }
    static let runs = missing.isEmpty || ProcessInfo.processInfo.environment["CI"] == "true"
    static let reason = "needs promtool and prometheus-node-exporter (Debian prometheus, prometheus-node-exporter)"

    func export(_ store: String, _ extra: [String] = []) throws -> BinaryRun {
        try BinaryRun.run(
            ["export", "--store", store, "--format", "prometheus", "--now", "2026-11-30T12:00:00Z"] + extra,
            environment: environment)
    }

    func promtool(_ text: String) throws -> BinaryRun {
        try BinaryRun.run(
            ["check", "metrics"], environment: environment, input: Data(text.utf8), executable: "/usr/bin/promtool")
    }

    @Test("promtool passes the export of the example store and of 1000 random records", .enabled(if: runs, "\(reason)"))
    func promtoolPasses() throws {
        try #require(Self.missing.isEmpty, "missing under CI: \(Self.missing); script/bootstrap installs them")
        let examples = try export(Repository.path("Examples/store"))
        #expect(examples.status == 0)
        #expect(
            examples.output.contains(
                #"aggctl_quota_depleted{provider="codex",account="you@example.com",window="session"} 1"#))
        let checked = try promtool(examples.output)
        #expect(checked.status == 0, "\(checked.output)\(checked.errors)")

        var generator = SeededGenerator(seed: 5)
        for index in 0..<1000 {
            try root.write("big/dev-\(index).json", Records.json(RandomRecords.snapshot(index, using: &generator)))
        }
        let big = try export(root.file("big"))
        #expect(big.status == 0)
        let lint = try promtool(big.output)
        #expect(lint.status == 0, "\(lint.output.prefix(500))\(lint.errors.prefix(500))")
        #expect(big.output.contains("aggctl_record_problems "))
    }

    @Test(
        "a real node_exporter serves the file written with --out, without a scrape error",
        .enabled(if: runs, "\(reason)"))
    func nodeExporterServes() throws {
        try #require(Self.missing.isEmpty, "missing under CI: \(Self.missing); script/bootstrap installs them")
        let folder = root.file("textfile")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let written = try export(Repository.path("Examples/store"), ["--out", folder + "/aggctl.prom"])
        #expect(written.status == 0)
        #expect(written.output.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["aggctl.prom"])
        let port = LocalServer.freePort()
        let server = try LocalServer(
            [
                "/usr/bin/prometheus-node-exporter", "--web.listen-address=127.0.0.1:\(port)",
                "--collector.disable-defaults", "--collector.textfile", "--collector.textfile.directory=\(folder)",
            ], port: port, log: root.file("node-exporter.log"))
        defer { server.stop() }
        let response = try HTTPClient().send(HTTPRequest(url: server.origin + "/metrics"))
        let page = String(decoding: response.body, as: UTF8.self)
        #expect(response.status == 200)
        #expect(
            page.contains(#"aggctl_quota_used_ratio{account="you@example.com",provider="claude",window="weekly"} 0.6"#))
        #expect(
            page.contains("node_textfile_scrape_error 0"),
            "\(page.split(separator: "\n").filter { $0.contains("textfile") })")
    }

    @Test("label values from hostile records are one escaped line; accounts without e-mail carry their device")
    func hostileLabels() throws {
        var entry = Records.entry(email: "evil\"\\\n@example.com", at: "2026-11-30T11:00:00Z", sessionUsed: 30)
        entry.providerID = "claude"
        let anonymous = Records.entry("codex", email: nil, at: "2026-11-30T11:00:00Z", sessionUsed: 10)
        try root.write(
            "store/box.json",
            Records.json(Records.snapshot("box", generatedAt: "2026-11-30T11:00:00Z", [entry, anonymous])))
        let run = try export(root.file("store"))
        #expect(run.status == 0)
        // The quote and the backslash as the format escapes them; the line feed as `\x0A` first, its
        // backslash escaped in turn.
        #expect(run.output.contains(#"account="evil\"\\\\\\x0A@example.com""#), "\(run.output.prefix(400))")
        #expect(
            run.output.contains(
                #"aggctl_quota_used_ratio{provider="codex",account="",device="box",window="session"} 0.1"#))
        #expect(!run.output.contains("@example.com\n\""))
        if Self.missing.isEmpty {
            let lint = try promtool(run.output)
            #expect(lint.status == 0, "\(lint.output)\(lint.errors)")
        }
    }

    @Test("accounts whose emails differ late, or by a line feed against the text \\n, keep series of their own")
    func labelsNeverCollide() throws {
        let long = String(repeating: "y", count: 300)
        let emails = ["a\(long)1@x.test", "a\(long)2@x.test", "n\n@x.test", "n\\n@x.test", "n\\x0A@x.test"]
        let entries = emails.enumerated().map { index, email in
            Records.entry(email: email, at: "2026-11-30T11:00:00Z", sessionUsed: Double(10 * (index + 1)))
        }
        try root.write(
            "store/box.json", Records.json(Records.snapshot("box", generatedAt: "2026-11-30T11:00:00Z", entries)))
        let run = try export(root.file("store"))
        #expect(run.status == 0, "\(run.errors)")
        let series = run.output.split(separator: "\n").filter { $0.hasPrefix("aggctl_quota_used_ratio{") }
            .map { $0.split(separator: " ").dropLast().joined(separator: " ") }
        #expect(Set(series).count == 5, "\(series)")
        #expect(!run.output.contains("..."), "no label is cut")
        if Self.missing.isEmpty {
            let lint = try promtool(run.output)
            #expect(lint.status == 0, "\(lint.output)\(lint.errors)")
        }
    }

    @Test("the example alert rules are valid rules for these metrics", .enabled(if: runs, "\(reason)"))
    func exampleRules() throws {
        try #require(Self.missing.isEmpty, "missing under CI: \(Self.missing); script/bootstrap installs them")
        let run = try BinaryRun.run(
            ["check", "rules", Repository.path("Examples/prometheus/aggctl-rules.yml")], environment: environment,
            executable: "/usr/bin/promtool")
        #expect(run.status == 0, "\(run.output)\(run.errors)")
        #expect(run.output.contains("SUCCESS: 5 rules found"))
    }
}
