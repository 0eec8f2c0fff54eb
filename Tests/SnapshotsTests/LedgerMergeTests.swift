import Foundation
import Snapshots
import TestSupport
import Testing

/// How a publish lays this run's rows over the month the store holds (`Ledger.merged`): nothing spent is
/// lost when an agent deletes its logs, and a repriced hour takes the new price.
struct LedgerMergeTests {
    func row(_ hour: String, _ model: String, tokens: Int, cost: Double? = nil, provider: String = "claude")
        -> LedgerRow
    {
        LedgerRow(
            at: Records.date("2026-12-06T\(hour):00:00Z"), providerID: provider, model: model, inputTokens: tokens,
            costUSD: cost)
    }

    @Test("stored hours the logs no longer give stay; a grown hour grows; a shrunk one keeps what was published")
    func layering() {
        let published = [
            row("08", "claude-opus-4-6", tokens: 100, cost: 1), row("09", "claude-opus-4-6", tokens: 50, cost: 0.5),
            row("10", "claude-opus-4-6", tokens: 70, cost: 0.7),
        ]
        // Unsorted, as several sources give them: codex's hour first, then Claude's.
        let computed = [
            row("10", "gpt-5", tokens: 5, cost: 0.05, provider: "codex"),
            row("10", "claude-opus-4-6", tokens: 30, cost: 0.3),
            row("09", "claude-opus-4-6", tokens: 60, cost: 0.6), row("11", "claude-sonnet-4-5", tokens: 10),
        ]
        let merged = Ledger.merged(published: published, computed: computed)
        #expect(merged.map(\.key) == merged.map(\.key).sorted(), "in key order")
        #expect(
            merged.map { "\(Int($0.at.timeIntervalSince1970) / 3600 % 24) \($0.model) \($0.inputTokens)" } == [
                "8 claude-opus-4-6 100",  // its logs are gone: as published
                "9 claude-opus-4-6 60",  // grew
                "10 claude-opus-4-6 70",  // fewer tokens now (some logs deleted): as published
                "10 gpt-5 5",
                "11 claude-sonnet-4-5 10",
            ])
        // The same tokens at a new price: the new price stands.
        let repriced = Ledger.merged(
            published: published, computed: [row("08", "claude-opus-4-6", tokens: 100, cost: 2)])
        #expect(repriced.first?.costUSD == 2)
        #expect(Ledger.merged(published: [], computed: []).isEmpty)
    }
}
