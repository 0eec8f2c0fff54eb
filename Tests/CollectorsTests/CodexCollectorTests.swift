import Foundation
import Serialization
import Snapshots
import TestSupport
import Testing

@testable import Collectors

struct CodexCollectorTests {
    static let fixture = Repository.path("Tests/CollectorsTests/Fixtures/codex-home")
    /// What the corpus generator says a correct reader must find.
    nonisolated(unsafe) static let manifest: [String: Any] = {
        let data = FileManager.default.contents(atPath: fixture + "/manifest.json")!
        return try! JSONSerialization.jsonObject(with: data) as! [String: Any]
    }()

    let now = Records.date("2026-11-30T12:00:00Z")

    @Test("the newest rate limits by event time become the session and weekly windows")
    func newestRateLimits() throws {
        let entry = try CodexCollector(home: Self.fixture).collect(now: now)
        let latest = Self.manifest["latest_rate_limits"] as! [String: Any]
        let primary = latest["primary"] as! [String: Any]
        let secondary = latest["secondary"] as! [String: Any]
        #expect(entry.providerID == "codex")
        #expect(entry.session?.usedPercent == primary["used_percent"] as? Double)
        #expect(entry.session?.windowMinutes == 300)
        #expect(entry.session?.resetsAt == (primary["resets_at"] as? Double).map { Date(timeIntervalSince1970: $0) })
        #expect(entry.weekly?.usedPercent == secondary["used_percent"] as? Double)
        #expect(entry.weekly?.windowMinutes == 10080)
        #expect(entry.weekly?.resetsAt == (secondary["resets_at"] as? Double).map { Date(timeIntervalSince1970: $0) })
        #expect(entry.lastUpdated == RFC3339.parse(latest["at"] as! String))
    }

    @Test("tokens per UTC day are the sums of last_token_usage, with today and the last 30 days")
    func tokensPerDay() throws {
        let entry = try CodexCollector(home: Self.fixture).collect(now: now)
        let perDay = Self.manifest["per_day"] as! [String: [String: Int]]
        let expected = perDay.mapValues { $0["total_tokens"]! }
        #expect(Dictionary(uniqueKeysWithValues: (entry.tokens?.daily ?? []).map { ($0.date, $0.tokens) }) == expected)
        #expect(entry.tokens?.today == expected["2026-11-30"])
        #expect(entry.tokens?.last30Days == (Self.manifest["totals"] as! [String: Int])["total_tokens"])
        let later = try CodexCollector(home: Self.fixture).collect(now: Records.date("2026-12-28T12:00:00Z"))
        #expect(later.tokens?.today == 0)
        #expect(later.tokens?.daily?.map(\.date) == ["2026-11-29", "2026-11-30"])
    }

    @Test("the account e-mail and plan come from auth.json's id_token")
    func account() throws {
        let entry = try CodexCollector(home: Self.fixture).collect(now: now)
        #expect(entry.accountEmail == Self.manifest["account_email"] as? String)
        #expect(entry.plan == Self.manifest["plan_type"] as? String)
    }

    @Test("older rate-limit shapes and null info or limits are read")
    func olderShapes() {
        let lines = """
            {"timestamp":"2026-11-30T10:00:00.500Z","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":{"primary":{"used_percent":15.7,"window_minutes":300,"resets_in_seconds":7056},"secondary":{"used_percent":18.8,"window_minutes":10080,"resets_in_seconds":9161}}}}
            {"timestamp":"2026-11-30T09:00:00Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"total_tokens":40}},"rate_limits":{"primary_used_percent":90,"secondary_used_percent":20,"primary_window_minutes":300,"secondary_window_minutes":10080}}}
            {"timestamp":"2026-11-30T11:00:00Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"total_tokens":2}},"rate_limits":null}}
            {"timestamp":"2026-11-30T11:30:00Z","type":"response_item","payload":{"type":"message","content":"talking about \\"token_count\\" here"}}
            not json "token_count"
            """
        let scan = Data(lines.utf8).withUnsafeBytes { CodexCollector.scan(bytes: $0) }
        #expect(scan.latest?.at == Records.date("2026-11-30T10:00:00.500Z"))
        #expect(
            scan.latest?.session
                == UsageWindow(usedPercent: 15.7, windowMinutes: 300, resetsAt: Records.date("2026-11-30T11:57:36Z")))
        #expect(scan.latest?.weekly?.usedPercent == 18.8)
        #expect(
            CodexCollector.combine([("rollout.jsonl", scan)]).spend.byUTCDay.mapValues(\.tokens) == ["2026-11-30": 42])
        let flat = Data(lines.split(separator: "\n")[1].utf8).withUnsafeBytes { CodexCollector.scan(bytes: $0) }
        #expect(flat.latest?.session == UsageWindow(usedPercent: 90, windowMinutes: 300))
    }

    @Test("a folder without Codex logs is a clear error naming it")
    func missingHome() {
        #expect(
            throws: CollectorError(
                "no Codex logs in '/nonexistent': neither '/nonexistent/sessions' nor '/nonexistent/archived_sessions' exists"
            )
        ) {
            try CodexCollector(home: "/nonexistent").collect(now: now)
        }
    }
}
