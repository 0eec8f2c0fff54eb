import Foundation
import Snapshots
import TestSupport
import Testing

/// `publish --source codex` then `check`, on the shapes Codex writes in 2026.
struct Codex2026EndToEndTests {
    let root = TemporaryDirectory("aggctl-codex-2026")
    var home: String { root.file("codex") }
    var environment: [String: String] {
        ["HOME": root.file("home"), "XDG_STATE_HOME": root.file("state"), "PATH": "/usr/bin:/bin"]
    }

    /// Appends one `token_count` line at `at` with `rateLimits` (JSON) to the session's rollout.
    func log(_ at: String, _ rateLimits: String) throws {
        let path = home + "/sessions/2026/11/30/rollout-2026-11-30T09-00-00-x.jsonl"
        if !FileManager.default.fileExists(atPath: path) {
            try root.write("codex/sessions/2026/11/30/rollout-2026-11-30T09-00-00-x.jsonl", "")
        }
        try TemporaryDirectory.append(
            #"{"timestamp":"\#(at)","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"total_tokens":5},"last_token_usage":{"total_tokens":5}},"rate_limits":\#(rateLimits)}}"#
                + "\n", to: path)
    }

    /// Publishes this machine's Codex logs and checks; the events' titles.
    func publishAndCheck(_ now: String) throws -> [String] {
        let publish = try BinaryRun.run(
            [
                "publish", "--store", root.file("store"), "--source", "codex:\(home)", "--device-id", "box", "--now",
                now,
            ],
            environment: environment)
        try #require(publish.status == 0, "\(publish.errors)")
        let check = try BinaryRun.run(
            ["check", "--store", root.file("store"), "--notify", "stdout", "--now", now], environment: environment)
        try #require(check.status == 0, "\(check.errors)")
        return check.output.split(separator: "\n").compactMap { line in
            ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?["title"] as? String
        }
    }

    @Test("a weekly-only Codex account is watched by its weekly window: a week running out is 'weekly quota depleted'")
    func weeklyOnly() throws {
        let week =
            #"{"primary":{"used_percent":%@,"window_minutes":10080,"resets_at":1796400000},"secondary":null,"plan_type":"free","rate_limit_reached_type":null}"#
        try log("2026-11-30T09:00:00.000Z", week.replacingOccurrences(of: "%@", with: "40"))
        #expect(try publishAndCheck("2026-11-30T09:01:00Z") == [])
        try log("2026-11-30T10:00:00.000Z", week.replacingOccurrences(of: "%@", with: "100"))
        #expect(try publishAndCheck("2026-11-30T10:01:00Z") == ["Codex weekly quota depleted"])
    }

    @Test("a limit Codex says is reached at 30 % used fires depleted")
    func reachedAtLowPercent() throws {
        let limits =
            #"{"primary":{"used_percent":%@,"window_minutes":300,"resets_at":1796050000},"secondary":{"used_percent":12,"window_minutes":10080,"resets_at":1796400000},"rate_limit_reached_type":%@}"#
        func line(_ used: String, _ reached: String) -> String {
            var text = limits
            text = text.replacingOccurrences(of: "\"used_percent\":%@", with: "\"used_percent\":\(used)")
            return text.replacingOccurrences(of: "%@", with: reached)
        }
        try log("2026-11-30T09:00:00.000Z", line("10", "null"))
        #expect(try publishAndCheck("2026-11-30T09:01:00Z") == [])
        try log("2026-11-30T10:00:00.000Z", line("30", #""primary""#))
        #expect(try publishAndCheck("2026-11-30T10:01:00Z") == ["Codex session depleted"])
    }

    @Test("workspace credits depleted blocks the account by its credits, not by windows that have room")
    func workspaceCreditsDepleted() throws {
        let limits =
            #"{"primary":{"used_percent":5,"window_minutes":300,"resets_at":1796050000},"secondary":{"used_percent":3,"window_minutes":10080,"resets_at":1796400000},"plan_type":"team","rate_limit_reached_type":%@}"#
        try log("2026-11-30T09:00:00.000Z", limits.replacingOccurrences(of: "%@", with: "null"))
        #expect(try publishAndCheck("2026-11-30T09:01:00Z") == [])
        try log(
            "2026-11-30T10:00:00.000Z",
            limits.replacingOccurrences(of: "%@", with: #""workspace_member_credits_depleted""#))
        let titles = try publishAndCheck("2026-11-30T10:01:00Z")
        #expect(titles.count == 1 && titles.first?.contains("Credits") == true, "\(titles)")
        #expect(!titles.contains { $0.contains("session") })
        let status = try BinaryRun.run(
            ["status", "--store", root.file("store"), "--json", "--now", "2026-11-30T10:02:00Z"],
            environment: environment)
        let report = try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any]
        let account = try #require((report?["accounts"] as? [[String: Any]])?.first)
        #expect(account["blocked"] as? Bool == true)
        #expect((account["session"] as? [String: Any])?["usedPercent"] as? Double == 5)
    }
}
