import Foundation
import Pricing
import Serialization
import Snapshots
import TestSupport
import Testing

@testable import Collectors

struct ClaudeCollectorTests {
    static let fixture = Repository.path("Tests/CollectorsTests/Fixtures/claude-home")
    nonisolated(unsafe) static let manifest: [String: Any] = {
        let data = FileManager.default.contents(atPath: fixture + "/manifest.json")!
        return try! JSONSerialization.jsonObject(with: data) as! [String: Any]
    }()

    @Test("tokens and cost, counted once per message.id and requestId, match the corpus's manifest")
    func totalsAfterDeduplication() throws {
        let entry = try ClaudeCollector(folders: [Self.fixture]).collect(now: Records.date("2026-11-30T12:00:00Z"))
        let daily = try #require(entry.tokens?.daily)
        #expect(daily.reduce(0) { $0 + $1.tokens } == Self.manifest["total_tokens_after_dedupe"] as? Int)
        #expect(entry.tokens?.last30Days == Self.manifest["total_tokens_after_dedupe"] as? Int)
        let cost = daily.reduce(0) { $0 + ($1.costUSD ?? 0) }
        // The manifest's cost per model, at the providers' published rates; a model the table no longer
        // names (Opus 4.1, gone from LiteLLM's table) counts its tokens and adds no cost.
        let perModel = Self.manifest["per_model"] as! [String: [String: Any]]
        let priced = perModel.filter { PriceTable.bundled.price(of: $0.key) != nil }
        #expect(priced.count == 3 && perModel["claude-opus-4-1-20250805"] != nil)
        #expect(abs(cost - priced.values.reduce(0) { $0 + ($1["cost_usd"] as! Double) }) < 1e-6)
        #expect(abs((entry.costUSD?.last30Days ?? 0) - cost) < 1e-9)
        #expect(entry.lastUpdated == RFC3339.parse(Self.manifest["last_timestamp"] as! String))
        #expect(daily.map(\.date) == ["2026-11-28", "2026-11-29", "2026-11-30"])
    }

    @Test("a usage-limit message marks the session used up until its reset, and no longer after")
    func limitMessage() throws {
        let during = try ClaudeCollector(folders: [Self.fixture]).collect(now: Records.date("2026-11-28T13:30:00Z"))
        #expect(
            during.session
                == UsageWindow(usedPercent: 100, windowMinutes: 300, resetsAt: Records.date("2026-11-28T14:00:00Z")))
        let after = try ClaudeCollector(folders: [Self.fixture]).collect(now: Records.date("2026-11-28T14:00:01Z"))
        #expect(after.session == nil)
    }

    @Test("5-hour blocks start at the hour of their first response and end five hours later, or after a gap")
    func blocks() {
        func end(_ times: [String], now: String) -> Date? {
            ClaudeCollector.blockEnd(
                times: times.map { Records.date($0).timeIntervalSince1970 },
                now: Records.date(now).timeIntervalSince1970
            ).map { Date(timeIntervalSince1970: $0) }
        }
        let day = ["2026-11-30T06:20:00Z", "2026-11-30T10:00:00Z", "2026-11-30T11:30:00Z"]
        #expect(end(day, now: "2026-11-30T10:30:00Z") == Records.date("2026-11-30T11:00:00Z"))
        // Activity running past a block's end starts the next block at that response's hour.
        #expect(end(day, now: "2026-11-30T12:00:00Z") == Records.date("2026-11-30T16:00:00Z"))
        // Five hours without a response: no block is running.
        #expect(end(day, now: "2026-11-30T16:30:00Z") == nil)
        #expect(end([], now: "2026-11-30T12:00:00Z") == nil)
    }

    @Test("a limit message without a reset time uses up the session until its 5-hour block ends")
    func limitWithoutTime() throws {
        let root = TemporaryDirectory("aggctl-claude-block")
        let folder = root.file("claude")
        try FileManager.default.createDirectory(
            atPath: folder + "/projects/p", withIntermediateDirectories: true)
        func response(_ id: String, _ at: String) -> String {
            #"{"type":"assistant","timestamp":"\#(at)","requestId":"r\#(id)","message":{"id":"m\#(id)","model":"x","usage":{"input_tokens":1}}}"#
        }
        let limit =
            #"{"type":"assistant","timestamp":"2026-11-30T13:31:00Z","message":{"content":[{"type":"text","text":"5-hour limit reached ∙ resets 3pm"}]}}"#
        try [response("1", "2026-11-30T10:10:00Z"), response("2", "2026-11-30T13:30:00Z"), limit]
            .joined(separator: "\n").appending("\n")
            .write(toFile: folder + "/projects/p/s.jsonl", atomically: true, encoding: .utf8)
        let during = try ClaudeCollector(folders: [folder]).collect(now: Records.date("2026-11-30T14:00:00Z"))
        #expect(
            during.session
                == UsageWindow(usedPercent: 100, windowMinutes: 300, resetsAt: Records.date("2026-11-30T15:00:00Z")))
        let after = try ClaudeCollector(folders: [folder]).collect(now: Records.date("2026-11-30T15:00:01Z"))
        #expect(after.session == nil)
    }

    @Test(
        "a line's own costUSD wins over the price table; an hour's cache writes at their rate; an unknown model costs nothing"
    )
    func costs() {
        var scan = ClaudeCollector.Scan()
        // Opus 4.6 at the bundled table's $5 a million input tokens (its own price, not Opus 4's $15 by a
        // shared prefix); 2000 cache tokens written, 500 for 5 minutes ($6.25/M) and 1500 for an hour
        // ($10/M), as Claude Code logs the split (`cache_creation`): 0.003125 + 0.015.
        let lines = """
            {"type":"assistant","timestamp":"2026-11-30T10:00:00Z","requestId":"r1","costUSD":0.5,"message":{"id":"m1","model":"claude-opus-4-6","usage":{"input_tokens":1000000,"output_tokens":0}}}
            {"type":"assistant","timestamp":"2026-11-30T10:01:00Z","requestId":"r2","message":{"id":"m2","model":"claude-opus-4-6","usage":{"input_tokens":1000000,"output_tokens":0}}}
            {"type":"assistant","timestamp":"2026-11-30T10:02:00Z","requestId":"r2","message":{"id":"m2","model":"claude-opus-4-6","usage":{"input_tokens":1000000,"output_tokens":0}}}
            {"type":"assistant","timestamp":"2026-11-30T10:03:00Z","requestId":"r3","message":{"id":"m3","model":"some-future-model","usage":{"input_tokens":7}}}
            {"type":"assistant","timestamp":"2026-11-30T10:04:00Z","requestId":"r4","message":{"id":"m4","model":"claude-opus-4-6-20260205","usage":{"input_tokens":0,"output_tokens":0,"cache_creation_input_tokens":2000,"cache_creation":{"ephemeral_5m_input_tokens":500,"ephemeral_1h_input_tokens":1500}}}}
            """
        Data(lines.utf8).withUnsafeBytes { scan.read($0) }
        let day = scan.spend.byUTCDay["2026-11-30"]
        #expect(abs((day?.cost ?? 0) - (0.5 + 5 + 0.003125 + 0.015)) < 1e-9)
        #expect(day?.tokens == 2_002_007)
    }

    @Test("a day of only unpriced models has no cost, not $0: its tokens count")
    func unpricedDay() throws {
        let folder = TemporaryDirectory("aggctl-claude-unpriced")
        try folder.write(
            "projects/p/s.jsonl",
            #"{"type":"assistant","timestamp":"2026-11-29T10:00:00Z","requestId":"r1","message":{"id":"m1","model":"claude-unreleased-9","usage":{"input_tokens":700,"output_tokens":0}}}"#
                + "\n"
                + #"{"type":"assistant","timestamp":"2026-11-30T10:00:00Z","requestId":"r2","message":{"id":"m2","model":"claude-opus-4-6","usage":{"input_tokens":1000,"output_tokens":0}}}"#
                + "\n")
        let entry = try ClaudeCollector(folders: [folder.path]).collect(now: Records.date("2026-11-30T12:00:00Z"))
        #expect(entry.tokens?.daily?.map(\.tokens) == [700, 1000])
        #expect(entry.tokens?.daily?.map(\.costUSD) == [nil, 1000 * 5e-6])
        #expect(entry.costUSD == CostUsage(today: 0.005, last30Days: 0.005))
        let unpricedOnly = try ClaudeCollector(folders: [folder.path]).collect(
            now: Records.date("2026-11-29T12:00:00Z"))
        #expect(unpricedOnly.tokens?.today == 700 && unpricedOnly.costUSD == nil)
    }

    @Test("no logs at all is a clear error naming where it looked")
    func missing() {
        #expect(throws: CollectorError("no Claude Code logs in '/nonexistent'")) {
            try ClaudeCollector(folders: ["/nonexistent"]).collect(now: Date())
        }
    }
}
