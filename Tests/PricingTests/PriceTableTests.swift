import Foundation
import Testing

@testable import Pricing

/// Prices and costs against what other tools' tests assert and what the providers publish; each case
/// names its source.
struct PriceTableTests {
    func near(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-12 * max(1, abs(b)) }

    /// ccusage's cost tests (ryoppippi/ccusage, rust/crates/ccusage/src/cost.rs, commit 5816e640), with
    /// their table and the costs they assert.
    static let ccusageTable = #"""
        {"test-model": {"input_cost_per_token": 1.0, "output_cost_per_token": 10.0,
          "cache_creation_input_token_cost": 1.25, "cache_read_input_token_cost": 0.1,
          "input_cost_per_token_above_200k_tokens": 2.0, "cache_creation_input_token_cost_above_200k_tokens": 1.5}}
        """#

    @Test("cache writes by duration: 5 minutes at the write rate, an hour at twice the input (ccusage)")
    func cacheWritesByDuration() throws {
        let table = try PriceTable.parse(Data(Self.ccusageTable.utf8), origin: "test")
        let price = try #require(table.models["test-model"])
        // prices_cache_creation_breakdown_by_duration: 10 at 5 minutes, 20 at an hour, 30 read -> 55.5.
        #expect(near(price.cost(of: TokenCounts(cacheWrite: 10, cacheWriteHour: 20, cacheRead: 30)), 55.5))
        // falls_back_to_flat_cache_creation_rate_without_breakdown: 10 written -> 12.5.
        #expect(near(price.cost(of: TokenCounts(cacheWrite: 10)), 12.5))
    }

    @Test("the bundled table prices Opus 4.6 to 4.8 at their own rates, never at Opus 4's by its prefix")
    func noPrefixMatch() throws {
        // Anthropic's pricing page: Opus 4.5 and later $5 / $25 per million tokens, cache writes $6.25
        // (5 minutes) and $10 (an hour), reads $0.50. A response of 1000 in, 500 out, 2000 + 1000
        // written, 10 000 read: 0.005 + 0.0125 + 0.0125 + 0.01 + 0.005 = $0.045.
        let tokens = TokenCounts(input: 1000, output: 500, cacheWrite: 2000, cacheWriteHour: 1000, cacheRead: 10_000)
        for model in ["claude-opus-4-6", "claude-opus-4-7", "claude-opus-4-8", "claude-opus-4-6-20260205"] {
            let found = try #require(PriceTable.bundled.price(of: model), "\(model)")
            #expect(near(found.price.cost(of: tokens), 0.045), "\(model)")
        }
        // A model the table does not name is unpriced, not the price of one sharing its beginning.
        #expect(PriceTable.bundled.price(of: "claude-opus-4") == nil)
        #expect(PriceTable.bundled.price(of: "claude-opus-4-6-turbo") == nil)
    }

    @Test("a cloud's id is priced as the model it serves: Bedrock's prefixes and suffix, Vertex's @date, vendor/")
    func cloudIDs() throws {
        let table = PriceTable.bundled
        let plain = try #require(table.price(of: "claude-sonnet-4-5")).price
        for id in [
            "us.anthropic.claude-sonnet-4-5-20250929-v1:0", "anthropic.claude-sonnet-4-5-20250929-v1:0",
            "global.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5@20250929",
            "anthropic/claude-sonnet-4-5", "claude-sonnet-4-5-20250929",
        ] {
            #expect(table.price(of: id)?.price == plain, "\(id)")
        }
        #expect(PriceTable.normalized("eu.anthropic.claude-opus-4-6-v1:0") == "claude-opus-4-6")
        #expect(PriceTable.normalized("openrouter/anthropic/claude-opus-4-6") == "claude-opus-4-6")
        // ccusage's pricing tests (rust/crates/ccusage/src/pricing.rs at 5816e640,
        // embedded_pricing_includes_claude_fast_multiplier_for_provider_models): these Bedrock ids resolve,
        // the version suffix with or without its `:0`.
        for (id, model) in [
            ("anthropic.claude-opus-4-6-v1", "claude-opus-4-6"), ("anthropic.claude-opus-4-7", "claude-opus-4-7"),
            ("anthropic.claude-opus-4-8", "claude-opus-4-8"),
        ] {
            #expect(table.price(of: id)?.price == table.price(of: model)?.price && table.price(of: id) != nil, "\(id)")
        }
        // A name that only looks like a version is the model's own.
        #expect(PriceTable.normalized("claude-vision-v") == "claude-vision-v")
        #expect(PriceTable.normalized("claude-x-v1a") == "claude-x-v1a")
    }

    @Test("a prompt over 200 000 tokens is charged at the long-context rates for the whole request")
    func longPrompt() throws {
        // Anthropic's pricing page, long context pricing for Sonnet 4.5: over 200K input tokens $6 input,
        // $22.50 output per million, cache reads $0.60. 150 000 in + 60 000 read = 210 000 > 200 000:
        // 0.9 + 0.036 + 1000 out at 22.5e-6 (0.0225) = $0.9585. At 190 000 the short rates: 0.45 + 0.012 + 0.015.
        let price = try #require(PriceTable.bundled.price(of: "claude-sonnet-4-5")).price
        #expect(near(price.cost(of: TokenCounts(input: 150_000, output: 1000, cacheRead: 60_000)), 0.9585))
        #expect(
            near(price.cost(of: TokenCounts(input: 150_000, output: 1000, cacheRead: 40_000)), 0.45 + 0.012 + 0.015))
    }

    @Test("a hostile table: a value that is not a price is dropped and named, an entry without rates skipped")
    func hostileTable() throws {
        let text = #"""
            {"a": {"input_cost_per_token": "free", "output_cost_per_token": 1e-6},
             "b": {"input_cost_per_token": -1, "output_cost_per_token": 2e-6},
             "c": 7, "d": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6, "mode": "chat"}}
            """#
        let parsed = try PriceTable.parse(Data(text.utf8), origin: "'prices.json'")
        #expect(parsed.models.keys.sorted() == ["d"])
        #expect(
            parsed.problems == [
                "'prices.json': a.input_cost_per_token is not a price per token",
                "'prices.json': b.input_cost_per_token is not a price per token",
            ])
        #expect(throws: PriceTableError.self) { try PriceTable.parse(Data("[1]".utf8), origin: "x") }
    }

    @Test("the user's overrides stand over single models; the rest is the table's")
    func overrides() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aggctl-prices-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(#"{"claude-opus-4-6": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}}"#.utf8)
            .write(to: URL(fileURLWithPath: folder + "/prices.json"))
        let (table, problems) = PriceTable.load(stateFolder: nil, configFolder: folder)
        #expect(problems.isEmpty)
        #expect(table.price(of: "claude-opus-4-6")?.price.rates.input == 1e-6)
        #expect(table.overridden == ["claude-opus-4-6"])
        #expect(table.price(of: "claude-opus-4-7")?.price == PriceTable.bundled.price(of: "claude-opus-4-7")?.price)
    }
}
