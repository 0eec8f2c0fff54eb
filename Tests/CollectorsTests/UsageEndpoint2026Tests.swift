import Foundation
import Snapshots
import TestSupport
import Testing

@testable import Collectors

/// The usage endpoints' answers of 2026 (weekly-only plans, per-model weeks as `limits[]`).
struct UsageEndpoint2026Tests {
    let known = ProviderUsage(providerID: "x", lastUpdated: Records.date("2026-11-30T12:00:00Z"))

    func json(_ text: String) throws -> JSONValue {
        try #require(Data(text.utf8).withUnsafeBytes { JSONValue.parse($0) })
    }

    @Test("codex-api: a weekly-only plan's week answered as primary_window is the weekly window")
    func codexWeeklyOnly() throws {
        let answer = try json(
            #"{"plan_type":"free","rate_limit":{"primary_window":{"used_percent":33,"limit_window_seconds":604800,"reset_at":1796400000},"secondary_window":null}}"#
        )
        let entry = try #require(CodexUsageEndpoint.figures(answer, onto: known))
        #expect(entry.session == nil)
        #expect(
            entry.weekly
                == UsageWindow(
                    usedPercent: 33, windowMinutes: 10_080, resetsAt: Date(timeIntervalSince1970: 1_796_400_000)))
        #expect(entry.plan == "free")
    }

    @Test(
        "claude-api: seven_day alone for a weekly-only account, limits[].weekly_scoped as per-model weeks, extra_usage no window"
    )
    func claudeWeeklyOnly() throws {
        let answer = try json(
            """
            {"five_hour": null, "seven_day": {"utilization": 61, "resets_at": "2026-12-03T09:00:00Z"},
             "limits": [{"model": "opus", "weekly_scoped": {"utilization": 80, "resets_at": "2026-12-03T09:00:00Z"}},
                        {"model": "haiku"}],
             "extra_usage": {"is_enabled": true, "monthly_limit": 5000, "used_credits": 1200, "utilization": 24}}
            """)
        let entry = try #require(ClaudeUsageEndpoint.figures(answer, onto: known))
        #expect(entry.session == nil)
        #expect(entry.weekly?.usedPercent == 61)
        #expect(entry.modelWeekly?.map(\.name) == ["Opus"])
        #expect(entry.modelWeekly?.first?.window.usedPercent == 80)
    }
}
