import Foundation
import Snapshots
import TestSupport
import Testing

@testable import Collectors

/// Token counts are hostile text too: a log line may claim counts near `Int.max`. Totals stop at
/// `Int.max` ("more than any") instead of stopping `publish` with an overflow trap or wrapping to a
/// negative count.
struct HugeTokenCountTests {
    let root = TemporaryDirectory("aggctl-huge-tokens")
    let now = Records.date("2026-11-30T12:00:00Z")
    /// Near the largest count a log line may give (`wholeCount` takes anything below 2^63).
    let huge = 9_000_000_000_000_000_000

    @Test("Claude: responses of counts near Int.max, and one whose four counts overflow, add up to Int.max")
    func claude() throws {
        func response(_ id: String, at: String, input: Int, output: Int = 0) -> String {
            #"{"type":"assistant","timestamp":"\#(at)","requestId":"req_\#(id)","message":{"id":"msg_\#(id)","model":"claude-sonnet-4-5-20250929","usage":{"input_tokens":\#(input),"output_tokens":\#(output)}}}"#
        }
        let lines = [
            response("a", at: "2026-11-30T09:00:00Z", input: huge),
            response("b", at: "2026-11-30T10:00:00Z", input: huge),
            response("c", at: "2026-11-29T10:00:00Z", input: huge, output: huge),
        ]
        try root.write("claude/projects/p/s.jsonl", Data((lines.joined(separator: "\n") + "\n").utf8))
        let entry = try ClaudeCollector(folders: [root.file("claude")]).collect(now: now)
        #expect(entry.tokens?.today == Int.max)
        #expect(entry.tokens?.last30Days == Int.max)
        #expect(entry.tokens?.daily?.map(\.tokens) == [Int.max, Int.max])
    }

    @Test("Codex: two days of counts near Int.max give Int.max for the 30 days")
    func codex() throws {
        func event(at: String, total: Int) -> String {
            #"{"timestamp":"\#(at)","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"total_tokens":\#(total)}},"rate_limits":null}}"#
        }
        let lines = [event(at: "2026-11-29T09:00:00Z", total: huge), event(at: "2026-11-30T09:00:00Z", total: huge)]
        try root.write("codex/sessions/2026/11/30/rollout-a.jsonl", Data((lines.joined(separator: "\n") + "\n").utf8))
        let entry = try CodexCollector(home: root.file("codex")).collect(now: now)
        #expect(entry.tokens?.today == huge)
        #expect(entry.tokens?.last30Days == Int.max)
    }

    @Test("Gemini: a message whose counts overflow, and two days near Int.max, never give a negative count")
    func gemini() throws {
        let session = """
            {"sessionId": "s", "messages": [
              {"id": "m-1", "timestamp": "2026-11-30T09:00:00.000Z", "type": "gemini",
               "tokens": {"input": \(huge), "output": \(huge), "thoughts": 0, "tool": 0}},
              {"id": "m-2", "timestamp": "2026-11-29T09:00:00.000Z", "type": "gemini", "tokens": {"total": \(huge)}}
            ]}
            """
        try root.write("gemini/tmp/h/chats/session-2026-11-30T09-00-a.json", Data(session.utf8))
        let entry = try GeminiCollector(home: root.file("gemini")).collect(now: now)
        #expect(entry.tokens?.today == Int.max)
        #expect(entry.tokens?.last30Days == Int.max)
    }

    @Test("times far outside the calendar, as a damaged scan state may hold them, are each counted on their own day")
    func timesOutsideTheCalendar() {
        var file = ClaudeCollector.FileScan()
        file.responses = [1e300, -1e300, .nan, 1e300].enumerated().map { index, seconds in
            .init(
                key: UInt64(index), at: Date(timeIntervalSince1970: seconds), costUSD: 0, spent: SpentTokens(input: 1))
        }
        file.models = ["claude-sonnet-4-5"]
        var scan = ClaudeCollector.Scan()
        scan.add(file)
        #expect(scan.spend.byUTCDay.mapValues(\.tokens) == ["9999-12-31": 2, "0001-01-01": 1, "1970-01-01": 1])
    }
}
