import Foundation
import Pricing
import Snapshots
import TestSupport
import Testing

@testable import Collectors

/// Codex's responses priced by the table as ccusage prices them (`calculate_codex_model_cost` in
/// ryoppippi/ccusage, rust/crates/ccusage/src/adapter/codex/report.rs, commit 5816e640): input without
/// its cached part at the input rate, cached at the cached rate, output (reasoning included) at the
/// output rate. The rates are the bundled table's (OpenAI's published: GPT-5 $1.25, $0.125 cached, $10
/// output per million; GPT-5 mini $0.25, $0.025, $2).
struct CodexCostTests {
    let folder = TemporaryDirectory("aggctl-codex-cost")

    func collect(_ lines: [String], now: String) throws -> ProviderUsage {
        try folder.write("home/sessions/2026/01/03/rollout-a.jsonl", lines.joined(separator: "\n") + "\n")
        return try CodexCollector(home: folder.file("home")).collect(now: Records.date(now))
    }

    @Test("a token count names its model: its parts priced as ccusage prices them")
    func lineModel() throws {
        // ccusage's loads_directory_groups_with_date_filter_without_global_event_vector (mod.rs): the
        // line, and its group: input 200, cached 20, output 75.
        let entry = try collect(
            [
                #"{"timestamp":"2026-01-03T00:00:00.000Z","type":"event_msg","payload":{"type":"token_count","info":{"model":"gpt-5","last_token_usage":{"input_tokens":200,"cached_input_tokens":20,"output_tokens":75,"reasoning_output_tokens":5,"total_tokens":280}}}}"#
            ], now: "2026-01-03T12:00:00Z")
        #expect(entry.tokens?.today == 280)
        let expected = 180 * 1.25e-6 + 20 * 1.25e-7 + 75 * 1e-5
        #expect(abs((entry.costUSD?.today ?? 0) - expected) < 1e-15)
        #expect(abs((entry.tokens?.daily?.first?.costUSD ?? 0) - expected) < 1e-15)
    }

    @Test(
        "a turn's model prices the counts after it; a session's totals are priced by their growth; an unknown model costs nothing"
    )
    func turnsAndTotals() throws {
        let entry = try collect(
            [
                #"{"timestamp":"2026-01-03T09:00:00.000Z","type":"turn_context","payload":{"cwd":"/w","model":"gpt-5-mini"}}"#,
                // ccusage's snapshot day of gpt-5-mini: 10 in, 2 out: $0.0000065.
                #"{"timestamp":"2026-01-03T09:00:01.000Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":2,"reasoning_output_tokens":0,"total_tokens":12}}}}"#,
                // Only the session's totals (older builds): the second grew by 100 in (40 cached), 20 out.
                #"{"timestamp":"2026-01-03T09:01:00.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1000,"cached_input_tokens":500,"output_tokens":100,"total_tokens":1100}}}}"#,
                #"{"timestamp":"2026-01-03T09:02:00.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1100,"cached_input_tokens":540,"output_tokens":120,"total_tokens":1220}}}}"#,
                #"{"timestamp":"2026-01-03T09:03:00.000Z","type":"turn_context","payload":{"cwd":"/w","model":"gpt-99-secret"}}"#,
                #"{"timestamp":"2026-01-03T09:04:00.000Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":7,"output_tokens":1,"total_tokens":8}}}}"#,
            ], now: "2026-01-03T12:00:00Z")
        #expect(entry.tokens?.today == 12 + 1100 + 120 + 8)
        let mini = (input: 2.5e-7, cached: 2.5e-8, output: 2e-6)
        let expected =
            6.5e-6  // ccusage's figure
            + (500 * mini.input + 500 * mini.cached + 100 * mini.output)  // the first total, from the file's start
            + (60 * mini.input + 40 * mini.cached + 20 * mini.output)  // the second's growth
        #expect(abs((entry.costUSD?.today ?? 0) - expected) < 1e-15)
    }

    @Test(
        "the ledger's rows: input without its cached part, cached as cache reads, output with its reasoning, by model")
    func ledgerRows() throws {
        // The corpus's case (RealWorld/codex/cached-input-priced, from ccusage's adapter test): its total of
        // 280 is 200 in, 75 out and 5 of reasoning, so the row's output is 80, 5 of it reasoning.
        let home = Repository.path("Tests/CollectorsTests/RealWorld/codex/cached-input-priced")
        let rows = try CodexCollector(home: home).gather(now: Records.date("2026-11-30T12:00:00Z")).ledger
        #expect(rows.map(\.model) == ["gpt-5", "gpt-5-mini"])
        #expect(rows.map(\.at) == [Records.date("2026-11-30T09:00:00Z"), Records.date("2026-11-30T09:00:00Z")])
        #expect(rows.map(\.inputTokens) == [180, 10])
        #expect(rows.map(\.cacheReadTokens) == [20, 0])
        #expect(rows.map(\.outputTokens) == [80, 2])
        #expect(rows.map(\.reasoningTokens) == [5, 0])
        #expect(rows.map(\.totalTokens) == [280, 12])
    }
}
