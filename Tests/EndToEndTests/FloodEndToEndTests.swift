import Foundation
import Snapshots
import TestSupport
import Testing

/// A run with thousands of events (a record of 5000 used-up limits): a phone gets ten notifications and
/// one summary, a program every event, and the next run sends nothing again.
struct FloodEndToEndTests {
    let root = TemporaryDirectory("aggctl-flood")

    func check(_ now: String, _ notify: [String]) throws -> BinaryRun {
        try BinaryRun.run(
            ["check", "--store", root.file("store"), "--now", now] + notify.flatMap { ["--notify", $0] },
            environment: ["HOME": root.file("home"), "XDG_STATE_HOME": root.file("state"), "PATH": "/usr/bin:/bin"])
    }

    func publish(limits used: Double, at: String) throws {
        var entry = Records.entry(
            "claude", email: "flood@example.com", at: at, sessionUsed: 10,
            resetsAt: "2026-11-30T15:00:00Z")
        entry.limits = (0..<5000).map { index in
            Limit(id: "pool-\(index)", label: "Pool \(index)", windowMinutes: 43_200, usedPercent: used)
        }
        let record = Records.snapshot("laptop", generatedAt: at, [entry])
        try root.write("store/laptop.json", Records.json(record))
    }

    @Test("5000 used-up limits: ntfy gets 10 and one summary, stdout all 5000; the next run sends nothing")
    func flood() throws {
        let server = try LocalServer.sharedHTTPServer()
        let path = "/ntfy/flood-\(UUID().uuidString.prefix(8))"
        try publish(limits: 10, at: "2026-11-30T12:00:00Z")
        #expect(try check("2026-11-30T12:00:30Z", ["stdout", "ntfy:" + server.origin + path]).status == 0)
        try publish(limits: 100, at: "2026-11-30T12:00:50Z")
        let run = try check("2026-11-30T12:01:00Z", ["stdout", "ntfy:" + server.origin + path])
        #expect(run.status == 0, "\(run.errors.prefix(600))")
        let lines = run.output.split(separator: "\n").filter { $0.contains(#""kind":"depleted""#) }
        #expect(lines.count == 5000, "a program gets every event")
        let posts = try requests(server).filter { $0.path == path }
        #expect(posts.count == 11, "ten and a summary")
        let summary = try #require(posts.last?.decoded)
        #expect(summary["title"] == "4990 more aggctl alerts", "\(summary)")
        #expect(summary["message"]??.contains("aggctl status") == true)
        let again = try check("2026-11-30T12:01:30Z", ["stdout", "ntfy:" + server.origin + path])
        #expect(again.status == 0)
        #expect(try requests(server).filter { $0.path == path }.count == 11, "folded events count as delivered")
    }
}
