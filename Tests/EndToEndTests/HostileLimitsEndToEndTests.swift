import Foundation
import TestSupport
import Testing

/// Records that once hid or forged an alert through a limit (issue 46), through the shipped binary: one
/// bad value beside a used-up session, and limits named after the windows.
struct HostileLimitsEndToEndTests {
    let root = TemporaryDirectory("aggctl-hostile-limits")
    var environment: [String: String] {
        ["HOME": root.file("home"), "XDG_STATE_HOME": root.file("state"), "PATH": "/usr/bin:/bin"]
    }

    /// A record of one Claude entry: the session and weekly windows as given, and `limits` as raw JSON.
    func publish(session: Double, weekly: Double, limits: String, at: String = "2026-11-30T12:00:00Z") throws {
        try root.write(
            "store/laptop.json",
            """
            {"schemaVersion": 2, "deviceID": "laptop", "deviceName": "laptop", "generatedAt": "\(at)",
             "providers": [{"providerID": "claude", "accountEmail": "you@example.com", "lastUpdated": "\(at)",
               "session": {"usedPercent": \(session), "windowMinutes": 300, "resetsAt": "2026-11-30T14:00:00Z"},
               "weekly": {"usedPercent": \(weekly), "windowMinutes": 10080, "resetsAt": "2026-12-03T09:00:00Z"},
               "limits": \(limits)}]}
            """)
    }

    func run(_ arguments: [String], now: String) throws -> BinaryRun {
        try BinaryRun.run(arguments + ["--store", root.file("store"), "--now", now], environment: environment)
    }

    func titles(_ output: String) -> [String] {
        output.split(separator: "\n").compactMap { line in
            ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?["title"] as? String
        }
    }

    /// An Opus week with one field no reader can use, and that field's name.
    static let badLimits = [
        (#""windowMinutes": 1e20, "usedPercent": 5"#, "windowMinutes"),
        (#""windowMinutes": 10080, "usedPercent": 1e309"#, "usedPercent"),
        (#""windowMinutes": 10080, "usedPercent": "50""#, "usedPercent"),
        (#""usedPercent": 5, "resetsAt": "soon""#, "resetsAt"),
    ].map { (#"{"id": "opus-weekly", "label": "Opus", "binding": false, "# + $0.0 + "}", $0.1) }

    @Test(
        "one bad limit beside a used-up session: the limit is left out with a problem, the session still alerts",
        arguments: badLimits)
    func badLimitLeavesTheRest(limit: String, field: String) throws {
        let good =
            #"{"id": "sonnet-weekly", "label": "Sonnet", "windowMinutes": 10080, "usedPercent": 20, "binding": false}"#
        try publish(session: 100, weekly: 30, limits: "[\(limit), \(good)]")
        let check = try run(["check", "--notify", "stdout"], now: "2026-11-30T12:01:00Z")
        #expect(check.status == 0, "\(check.errors)")
        #expect(titles(check.output) == ["Claude session depleted"], "\(check.output) \(check.errors)")
        let status = try run(["status", "--json"], now: "2026-11-30T12:01:00Z")
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
        let problems = (document["problems"] as? [[String: Any]] ?? []).compactMap { $0["reason"] as? String }
        #expect(
            problems.contains { $0.contains("'providers[0].limits[0]' is left out") && $0.contains(field) },
            "\(problems)")
        let account = try #require((document["accounts"] as? [[String: Any]])?.first)
        #expect((account["limits"] as? [[String: Any]])?.map { $0["id"] as? String } == ["sonnet-weekly"])
    }

    @Test("a limit named 'weekly' or 'session' is refused: the real week's depletion and restore fire as they happen")
    func limitNamedAfterAWindow() throws {
        let fake =
            #"[{"id": "weekly", "label": "Weekly", "windowMinutes": 10080, "usedPercent": 0, "binding": true}, "#
            + #"{"id": "session", "label": "Session", "windowMinutes": 300, "usedPercent": 100, "binding": true}]"#
        try publish(session: 20, weekly: 50, limits: fake)
        #expect(titles(try run(["check", "--notify", "stdout"], now: "2026-11-30T12:01:00Z").output).isEmpty)
        try publish(session: 20, weekly: 100, limits: fake, at: "2026-11-30T12:10:00Z")
        let spent = try run(["check", "--notify", "stdout"], now: "2026-11-30T12:11:00Z")
        #expect(titles(spent.output) == ["Claude weekly quota depleted"], "\(spent.output) \(spent.errors)")
        // Still spent an hour later: no restore from the fake limit at 0 %.
        try publish(session: 25, weekly: 100, limits: fake, at: "2026-11-30T13:10:00Z")
        #expect(titles(try run(["check", "--notify", "stdout"], now: "2026-11-30T13:11:00Z").output).isEmpty)
        let metrics = try run(["export", "--format", "prometheus"], now: "2026-11-30T13:11:00Z").output
        #expect(
            metrics.contains(#"aggctl_quota_depleted{provider="claude",account="you@example.com",window="weekly"} 1"#))
        let status = try run(["status", "--json"], now: "2026-11-30T13:11:00Z").output
        #expect(status.contains("a limit id cannot be 'weekly'") && status.contains("a limit id cannot be 'session'"))
    }
}
