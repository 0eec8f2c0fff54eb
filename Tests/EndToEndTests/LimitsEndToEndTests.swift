import Foundation
import Snapshots
import TestSupport
import Testing

/// Every limit an account has, through the shipped binary: the week that blocks the session, a model's
/// week used up in every output, old figures never shown as current, and state from version 1.
struct LimitsEndToEndTests {
    let root = TemporaryDirectory("aggctl-limits")
    var store: String { root.file("store") }
    var environment: [String: String] {
        ["HOME": root.file("home"), "XDG_STATE_HOME": root.file("state"), "PATH": "/usr/bin:/bin"]
    }

    /// This machine's Claude account at `at`: the session and weekly windows used as given, with resets.
    func publish(
        _ at: String, session: Double, sessionReset: String, weekly: Double, weeklyReset: String,
        limits: [Limit]? = nil
    ) throws {
        var entry = ProviderUsage(
            providerID: "claude", accountEmail: "you@example.com", plan: "Max 5x", lastUpdated: Records.date(at),
            session: UsageWindow(usedPercent: session, windowMinutes: 300, resetsAt: Records.date(sessionReset)),
            weekly: UsageWindow(usedPercent: weekly, windowMinutes: 10080, resetsAt: Records.date(weeklyReset)))
        entry.limits = limits
        try root.write("store/laptop.json", Records.json(Records.snapshot("laptop", generatedAt: at, [entry])))
    }

    func check(_ now: String) throws -> [[String: Any]] {
        let run = try BinaryRun.run(
            ["check", "--store", store, "--notify", "stdout", "--now", now], environment: environment)
        #expect(run.status == 0, "\(run.errors)")
        return run.output.split(separator: "\n").map { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
        }
    }

    @Test("a week spent while the session resets gives no 'session restored', and one 'weekly quota restored'")
    func weekBlocksTheSession() throws {
        try publish(
            "2026-11-30T12:00:00Z", session: 40, sessionReset: "2026-11-30T14:00:00Z", weekly: 50,
            weeklyReset: "2026-12-01T00:00:00Z")
        #expect(try check("2026-11-30T12:00:30Z").isEmpty)
        try publish(
            "2026-11-30T12:10:00Z", session: 100, sessionReset: "2026-11-30T14:00:00Z", weekly: 100,
            weeklyReset: "2026-12-01T00:00:00Z")
        let spent = try check("2026-11-30T12:10:30Z")
        #expect(spent.map { $0["title"] as? String } == ["Claude session depleted", "Claude weekly quota depleted"])
        #expect(spent.map { $0["window"] as? String } == ["session", "weekly"])
        // The session resets at 14:00, the week does not: nothing can be used, so nothing is restored.
        try publish(
            "2026-11-30T14:05:00Z", session: 3, sessionReset: "2026-11-30T19:00:00Z", weekly: 100,
            weeklyReset: "2026-12-01T00:00:00Z")
        #expect(try check("2026-11-30T14:05:30Z").isEmpty)
        try publish(
            "2026-11-30T19:05:00Z", session: 0, sessionReset: "2026-12-01T00:05:00Z", weekly: 100,
            weeklyReset: "2026-12-01T00:00:00Z")
        #expect(try check("2026-11-30T19:05:30Z").isEmpty)
        // The week comes back: one event, the week's own, saying both are available.
        try publish(
            "2026-12-01T00:01:00Z", session: 5, sessionReset: "2026-12-01T05:00:00Z", weekly: 2,
            weeklyReset: "2026-12-08T00:00:00Z")
        let back = try check("2026-12-01T00:01:30Z")
        #expect(back.map { $0["title"] as? String } == ["Claude weekly quota restored"])
        #expect((back.first?["body"] as? String)?.hasPrefix("Session and weekly quota are available again.") == true)
        #expect(try check("2026-12-01T00:02:00Z").isEmpty)
    }

    @Test("an Opus week used up shows in every output")
    func usedUpModelWeekShowsEverywhere() throws {
        let opus = Limit(
            id: "opus-weekly", label: "Opus", windowMinutes: 10080, usedPercent: 100,
            resetsAt: Records.date("2026-12-03T09:00:00Z"), binding: false)
        try publish(
            "2026-11-30T11:59:00Z", session: 30, sessionReset: "2026-11-30T14:00:00Z", weekly: 40,
            weeklyReset: "2026-12-03T09:00:00Z", limits: [opus])
        func run(_ arguments: [String]) throws -> String {
            let run = try BinaryRun.run(
                arguments + ["--store", store, "--now", "2026-11-30T12:00:00Z"], environment: environment)
            #expect(run.status == 0, "\(arguments): \(run.errors)")
            return run.output
        }
        #expect(try run(["status"]).contains("Opus used up"))
        #expect(try run(["status", "--format", "line"]) == "Claude 60%, Opus used up\n")
        let waybar = try run(["status", "--format", "waybar"])
        #expect(waybar.contains("Opus used up"))
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(try run(["status", "--json"]).utf8)) as? [String: Any])
        let account = try #require((json["accounts"] as? [[String: Any]])?.first)
        let limit = try #require((account["limits"] as? [[String: Any]])?.first)
        #expect(limit["id"] as? String == "opus-weekly" && limit["level"] as? String == "depleted")
        #expect(account["blocked"] as? Bool == false && account["tightest"] as? String == "weekly")
        #expect((account["modelWeekly"] as? [[String: Any]])?.first?["name"] as? String == "opus")
        #expect(try run(["statusline"]).contains("Opus used up"))
        #expect(try run(["export", "--format", "prometheus"]).contains(#"window="opus-weekly"} 1"#))
        #expect(try run(["export", "--format", "csv"]).contains("opus-weekly,100,0,depleted"))
        _ = try run(["report", "--out", root.file("report.html")])
        let page = try String(contentsOfFile: root.file("report.html"), encoding: .utf8)
        #expect(page.contains("<td>Opus</td><td><span class=\"level depleted\">used up</span>"))
    }

    @Test("a store three days old shows nothing as depleted")
    func oldStoreShowsNothingDepleted() throws {
        try publish(
            "2026-11-30T12:00:00Z", session: 100, sessionReset: "2026-11-30T14:00:00Z", weekly: 100,
            weeklyReset: "2026-12-01T00:00:00Z",
            limits: [
                Limit(
                    id: "opus-weekly", label: "Opus", windowMinutes: 10080, usedPercent: 100,
                    resetsAt: Records.date("2026-12-02T00:00:00Z"))
            ])
        let now = "2026-12-03T12:00:00Z"
        func run(_ arguments: [String]) throws -> String {
            try BinaryRun.run(arguments + ["--store", store, "--now", now], environment: environment).output
        }
        for arguments in [
            ["status"], ["status", "--format", "line"], ["status", "--format", "waybar"], ["statusline"],
        ] {
            let text = try run(arguments)
            #expect(!text.contains("depleted") && !text.contains("used up"), "\(arguments): \(text)")
        }
        #expect(try run(["status", "--format", "line"]) == "Claude due (stale)\n")
        let json = try run(["status", "--json"])
        #expect(!json.contains(#""level":"depleted""#))
        #expect(json.contains(#""blocked":false"#))
        let metrics = try run(["export", "--format", "prometheus"])
        #expect(!metrics.contains("aggctl_quota_depleted{"), "due windows are left out")
        #expect(metrics.contains(#"aggctl_account_blocked{provider="claude",account="you@example.com"} 0"#))
        // Nor is anything fired from figures past their reset.
        #expect(try check(now).isEmpty)
    }

    @Test("an upgrade from version-1 state fires no event again")
    func versionOneStateFiresNothingAgain() throws {
        // What version 1 left: the session remembered as depleted under the account's key.
        try root.write(
            "state/aggctl/alerts.json",
            Data(
                #"""
                {"accounts":{"claude:you@example.com":{"armedWarnings":[],"lastUpdated":"2026-11-30T12:10:00Z","remainingPercent":0,"resetsAt":"2026-11-30T14:00:00Z"}},"outbox":[],"schemaVersion":1}
                """#.utf8))
        try publish(
            "2026-11-30T12:10:00Z", session: 100, sessionReset: "2026-11-30T14:00:00Z", weekly: 30,
            weeklyReset: "2026-12-03T00:00:00Z")
        // The same figures: the session's depletion was told already, the week is seen for the first time.
        #expect(try check("2026-11-30T12:11:00Z").isEmpty)
        try publish(
            "2026-11-30T12:20:00Z", session: 100, sessionReset: "2026-11-30T14:00:00Z", weekly: 35,
            weeklyReset: "2026-12-03T00:00:00Z")
        #expect(try check("2026-11-30T12:21:00Z").isEmpty)
        // And the session's restore still comes, once.
        try publish(
            "2026-11-30T14:01:00Z", session: 2, sessionReset: "2026-11-30T19:00:00Z", weekly: 36,
            weeklyReset: "2026-12-03T00:00:00Z")
        #expect(try check("2026-11-30T14:01:30Z").map { $0["title"] as? String } == ["Claude session restored"])
    }
}
