import Foundation
import Pricing
import Snapshots
import TestSupport
import Testing

@testable import Collectors

/// Gemini CLI messages priced by the table: the token split ccusage's test asserts, the model's rates
/// from the bundled table (LiteLLM's `gemini-3-flash-preview`: $0.50 input, $3 output, $0.05 cached per
/// million).
struct GeminiCostTests {
    let folder = TemporaryDirectory("aggctl-gemini-cost")

    /// ccusage's `loads_jsonl_token_events_and_separates_cached_input` (ryoppippi/ccusage,
    /// rust/crates/ccusage/src/adapter/gemini/loader.rs, commit 5816e640): the line, and what it asserts:
    /// input 3 808 without the cache (15 327 - 11 526, plus 7 of tools), output 23, cached 11 526,
    /// thoughts 919.
    static let ccusageLine = #"""
        {"id":"msg-a","timestamp":"2026-05-17T11:07:32.000Z","type":"gemini","model":"gemini-3-flash-preview","tokens":{"input":15327,"output":23,"cached":11526,"thoughts":919,"tool":7,"total":16276}}
        """#

    func collect(_ lines: [String]) throws -> ProviderUsage {
        try folder.write("home/tmp/project/chats/session-a.jsonl", lines.joined(separator: "\n") + "\n")
        return try GeminiCollector(home: folder.file("home")).collect(now: Records.date("2026-05-17T12:00:00Z"))
    }

    @Test("input without the cached part and tools at the input rate, output and thoughts at the output rate")
    func ccusageSplit() throws {
        let entry = try collect([
            #"{"sessionId":"session-a","projectHash":"project-a","startTime":"2026-05-17T11:07:00.000Z"}"#,
            Self.ccusageLine,
        ])
        #expect(entry.tokens?.today == 16_276)
        let expected = 3808 * 5e-7 + (23 + 919) * 3e-6 + 11_526 * 5e-8
        #expect(abs((entry.costUSD?.today ?? 0) - expected) < 1e-12)
        #expect(abs((entry.tokens?.daily?.first?.costUSD ?? 0) - expected) < 1e-12)
    }

    @Test("a message without a model is priced as the one named before it; an unknown model counts tokens, no cost")
    func modelsAndTotals() throws {
        let entry = try collect([
            Self.ccusageLine,
            // No model: the previous line's. Only a total (ccusage's falls_back_to_total_tokens): priced as output.
            #"{"id":"msg-b","timestamp":"2026-05-17T11:08:00.000Z","type":"gemini","tokens":{"total":654}}"#,
            #"{"id":"msg-c","timestamp":"2026-05-17T11:09:00.000Z","type":"gemini","model":"gemini-99-ultra","tokens":{"input":1000,"output":10,"total":1010}}"#,
        ])
        #expect(entry.tokens?.today == 16_276 + 654 + 1010)
        let expected = 3808 * 5e-7 + (23 + 919) * 3e-6 + 11_526 * 5e-8 + 654 * 3e-6
        #expect(abs((entry.costUSD?.today ?? 0) - expected) < 1e-12)
    }

    @Test("the ledger's row: ccusage's split, thoughts in the output and given alone, in the message's hour")
    func ledgerRow() throws {
        try folder.write("home/tmp/project/chats/session-a.jsonl", Self.ccusageLine + "\n")
        let rows = try GeminiCollector(home: folder.file("home")).gather(now: Records.date("2026-05-17T12:00:00Z"))
            .ledger
        #expect(rows.count == 1)
        let row = try #require(rows.first)
        #expect(row.at == Records.date("2026-05-17T11:00:00Z"))
        #expect(row.model == "gemini-3-flash-preview")
        #expect(
            [row.inputTokens, row.outputTokens, row.cacheReadTokens, row.cacheWriteTokens]
                == [Int]([3808, 942, 11_526, 0]))
        #expect(row.reasoningTokens == 919)
        #expect(row.totalTokens == 16_276)
    }
}
