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
        "claude-api: seven_day alone for a weekly-only account, limits[] of kind weekly_scoped as per-model weeks, extra_usage the spend limit"
    )
    func claudeWeeklyOnly() throws {
        // limits[] as CodexBar's ClaudeOAuthTests assert it (RealWorld/claude-api has their answers whole);
        // an element without a percent, or of a kind not known, is skipped.
        let answer = try json(
            """
            {"five_hour": null, "seven_day": {"utilization": 61, "resets_at": "2026-12-03T09:00:00Z"},
             "limits": [{"kind": "weekly_scoped", "group": "weekly", "percent": 80, "resets_at": "2026-12-03T09:00:00Z",
                         "scope": {"model": {"id": null, "display_name": "Opus"}, "surface": null}, "is_active": false},
                        {"kind": "weekly_scoped", "group": "weekly", "scope": {"model": {"display_name": "Haiku"}}},
                        {"kind": "something_new", "group": "weekly", "percent": 99}],
             "extra_usage": {"is_enabled": true, "monthly_limit": 5000, "used_credits": 1200, "utilization": 24}}
            """)
        let entry = try #require(ClaudeUsageEndpoint.figures(answer, onto: known))
        #expect(entry.session == nil)
        #expect(entry.weekly?.usedPercent == 61)
        #expect(entry.limits?.map(\.id) == ["opus-weekly", "spend-monthly"])
        #expect(entry.limits?.first?.usedPercent == 80 && entry.limits?.first?.binding == false)
        // The spend cap of 5000 cents, 1200 used: $50, $12, 24 %, binding.
        let spend = try #require(entry.limits?.last)
        #expect(spend.limit == 50 && spend.used == 12 && spend.usedPercent == 24 && spend.binding)
    }

    // The shapes below are those of CodexBar's tests of the 2026 answers (steipete/CodexBar,
    // Tests/CodexBarTests/CodexAdditionalRateLimitsTests.swift and ClaudeOAuthTests.swift), synthetic.

    @Test(
        "codex-api: additional_rate_limits (Spark) are limits of that model, by their length; malformed ones are skipped"
    )
    func codexSpark() throws {
        let answer = try json(
            """
            {"plan_type": "pro",
             "rate_limit": {"primary_window": {"used_percent": 22, "reset_at": 1766948068, "limit_window_seconds": 18000},
                            "secondary_window": {"used_percent": 43, "reset_at": 1767407914, "limit_window_seconds": 604800}},
             "additional_rate_limits": ["garbage", 42,
               {"limit_name": "GPT-5.3-Codex-Spark", "metered_feature": "gpt_5_3_codex_spark",
                "rate_limit": {"allowed": true, "limit_reached": false,
                  "primary_window": {"used_percent": 30, "reset_at": 1766948068, "limit_window_seconds": 18000},
                  "secondary_window": {"used_percent": 64, "reset_at": 1767407914, "limit_window_seconds": 604800}}},
               {"limit_name": "GPT-5.3-Codex-Mini", "rate_limit": null}]}
            """)
        let entry = try #require(CodexUsageEndpoint.figures(answer, onto: known))
        #expect(entry.session?.usedPercent == 22 && entry.weekly?.usedPercent == 43, "the account's windows stand")
        #expect(entry.limits?.map(\.id) == ["spark-session", "spark-weekly"])
        #expect(entry.limits?.map(\.label) == ["Spark", "Spark"])
        #expect(entry.limits?.map(\.usedPercent) == [30, 64])
        #expect(entry.limits?.map(\.windowMinutes) == [300, 10_080])
        #expect(entry.limits?.allSatisfy { !$0.binding } == true, "Spark used up stops Spark, not the account")
    }

    @Test(
        "codex-api: an enterprise answer with only a monthly credit limit is a binding limit, not 'could not read usage'"
    )
    func codexCreditPool() throws {
        let answer = try json(
            """
            {"plan_type": "enterprise",
             "rate_limit": {"primary_window": null, "secondary_window": null,
                            "individual_limit": {"limit": 100000, "used": "7761", "remaining_percent": 92.239,
                                                 "resets_at": 1782864000}},
             "credits": {"has_credits": true, "unlimited": false, "balance": "0"}}
            """)
        let entry = try #require(CodexUsageEndpoint.figures(answer, onto: known))
        #expect(entry.session == nil && entry.weekly == nil)
        let credits = try #require(entry.limits?.first)
        #expect(credits.id == "credits-monthly" && credits.binding && credits.unit == "credits")
        #expect(credits.used == 7761 && credits.limit == 100_000)
        #expect(abs(credits.usedPercent - 7.761) < 1e-9)
        #expect(credits.resetsAt == Date(timeIntervalSince1970: 1_782_864_000))
        // Under spend_control, and a cap of 0 is no limit.
        let education = try json(
            """
            {"rate_limit": {"primary_window": {"used_percent": 10, "reset_at": 1786161204, "limit_window_seconds": 18000}},
             "spend_control": {"reached": false, "individual_limit": {"limit": 7000, "used": 1000, "remaining_percent": 85}}}
            """)
        #expect(try #require(CodexUsageEndpoint.figures(education, onto: known)).limits?.first?.usedPercent == 15)
        let zero = try json(
            #"{"rate_limit": {"primary_window": null, "individual_limit": {"limit": 0, "used": 0}}}"#)
        #expect(CodexUsageEndpoint.figures(zero, onto: known) == nil)
    }

    @Test(
        "copilot-api: chat and premium quotas are limits; overage above 100; a token-billed plan's zero quotas are no usage"
    )
    func copilotQuotas() throws {
        let now = Records.date("2026-11-30T12:00:00Z")
        let answer = try json(
            """
            {"copilot_plan": "individual", "quota_reset_date": "2026-12-01",
             "quota_snapshots": {
               "premium_interactions": {"entitlement": 500, "remaining": -75, "percent_remaining": -15, "quota_id": "premium_interactions"},
               "chat": {"entitlement": 120, "remaining": 30, "quota_id": "chat"},
               "completions": {"entitlement": 0, "remaining": 0, "percent_remaining": 100, "unlimited": true}}}
            """)
        let entry = try #require(CopilotUsageEndpoint.figures(answer, onto: known, now: now))
        #expect(entry.limits?.map(\.id) == ["premium-monthly", "chat-monthly"])
        #expect(entry.limits?.map(\.usedPercent) == [115, 75])
        #expect(entry.limits?.map(\.binding) == [true, false])
        #expect(entry.weekly == nil)
        let tokens = try json(
            """
            {"copilot_plan": "business", "token_based_billing": true,
             "quota_snapshots": {
               "premium_interactions": {"entitlement": 0, "remaining": 0, "percent_remaining": 100},
               "chat": {"entitlement": 0, "remaining": 0, "percent_remaining": 100}}}
            """)
        let business = try #require(CopilotUsageEndpoint.figures(tokens, onto: known, now: now))
        #expect(business.limits == nil, "not 0 % used")
        #expect(business.error == "billed by tokens: no request quota")
        let older = try json(
            #"{"copilot_plan": "free", "monthly_quotas": {"chat": "500", "completions": 300}, "limited_user_quotas": {"chat": 125, "completions": "75"}}"#
        )
        let free = try #require(CopilotUsageEndpoint.figures(older, onto: known, now: now))
        #expect(free.limits?.map(\.id) == ["chat-monthly", "completions-monthly"])
        #expect(free.limits?.map(\.usedPercent) == [75, 75])
    }

    @Test("claude-api: an enterprise answer with only a EUR spend cap in cents is a binding monthly limit")
    func claudeSpendOnly() throws {
        let answer = try json(
            """
            {"extra_usage": {"is_enabled": true, "monthly_limit": 2000, "used_credits": 763, "utilization": 38.15,
                             "currency": "EUR"}}
            """)
        let entry = try #require(ClaudeUsageEndpoint.figures(answer, onto: known), "not 'could not read usage'")
        #expect(entry.session == nil && entry.weekly == nil)
        #expect(
            entry.limits == [
                Limit(
                    id: "spend-monthly", label: "Spend", windowMinutes: 43_200, usedPercent: 38.15, used: 7.63,
                    limit: 20,
                    unit: "EUR", binding: true)
            ])
    }

    @Test("claude-api: Sonnet and routines weeks are limits; a cap in cents without a currency is USD")
    func claudeModelWeeks() throws {
        let answer = try json(
            """
            {"five_hour": {"utilization": 12.5, "resets_at": "2025-12-25T12:00:00.000Z"},
             "seven_day": {"utilization": 35, "resets_at": "2025-12-31T00:00:00.000Z"},
             "seven_day_sonnet": {"utilization": 58},
             "seven_day_routines": null, "seven_day_cowork": {"utilization": 14, "resets_at": "2026-01-01T00:00:00Z"},
             "extra_usage": {"is_enabled": true, "monthly_limit": 2050, "used_credits": 325}}
            """)
        let entry = try #require(ClaudeUsageEndpoint.figures(answer, onto: known))
        #expect(entry.session?.usedPercent == 12.5 && entry.weekly?.usedPercent == 35)
        #expect(entry.limits?.map(\.id) == ["sonnet-weekly", "routines-weekly", "spend-monthly"])
        #expect(entry.limits?.first?.usedPercent == 58, "the scoped week at 58 % while the week is at 35 %")
        let spend = try #require(entry.limits?.last)
        #expect(spend.unit == "USD" && spend.limit == 20.5 && spend.used == 3.25)
    }
}
