import Foundation
import Snapshots
import TestSupport
import Testing

/// The ledger's file: written canonically, read back the same; read as hostile (docs/format.md).
struct LedgerCodecTests {
    let laptop = Records.id("laptop")

    func row(_ at: String, model: String = "claude-opus-4-6", input: Int = 10, cost: Double? = 0.5) -> LedgerRow {
        LedgerRow(
            at: Records.date(at), providerID: "claude", accountEmail: "you@example.com", model: model,
            inputTokens: input, outputTokens: 2, costUSD: cost)
    }

    func decode(_ text: String, month: String = "2026-12") throws -> (Ledger, [String]) {
        let bytes = Array(text.utf8)
        let decoded = try bytes.withUnsafeBytes { try LedgerCodec.decode($0, deviceID: laptop, month: month) }
        return (decoded.ledger, decoded.notes)
    }

    @Test("a month written is read back the same, its rows in order; an unpriced row stays unpriced")
    func roundTrip() throws {
        let ledger = Ledger(
            deviceID: laptop, month: "2026-12", generatedAt: Records.date("2026-12-06T15:00:00Z"),
            pricesAsOf: "2026-12-07",
            rows: [
                row("2026-12-06T14:00:00Z", model: "gpt-5"), row("2026-12-06T13:00:00Z"),
                row("2026-12-06T14:00:00Z", model: "claude-unreleased", cost: nil),
            ])
        let text = String(decoding: try LedgerCodec.encode(ledger), as: UTF8.self)
        #expect(text.hasPrefix(#"{"deviceID":"laptop","generatedAt":"2026-12-06T15:00:00Z","month":"2026-12""#))
        let (read, notes) = try decode(text)
        #expect(notes.isEmpty)
        #expect(read.rows.map(\.model) == ["claude-opus-4-6", "claude-unreleased", "gpt-5"])
        #expect(read.rows[1].costUSD == nil)
        var sorted = ledger
        sorted.rows.sort { $0.key < $1.key }
        #expect(read == sorted)
    }

    @Test("hostile rows are skipped one by one with a note; the month stays")
    func hostileRows() throws {
        let text = #"""
            {"deviceID":"laptop","month":"2026-12","generatedAt":"2026-12-06T15:00:00Z","rows":[
             {"at":"2026-12-06T14:00:00Z","providerID":"claude","model":"m","inputTokens":1,"outputTokens":0,"cacheWriteTokens":0,"cacheReadTokens":0,"costUSD":0.1},
             {"at":"2026-12-06T14:30:00Z","providerID":"claude","model":"m","inputTokens":1,"outputTokens":0,"cacheWriteTokens":0,"cacheReadTokens":0},
             {"at":"2026-11-30T23:00:00Z","providerID":"claude","model":"m","inputTokens":1,"outputTokens":0,"cacheWriteTokens":0,"cacheReadTokens":0},
             {"at":"2026-12-06T15:00:00Z","providerID":"claude","model":"m","inputTokens":-5,"outputTokens":0,"cacheWriteTokens":0,"cacheReadTokens":0},
             {"at":"2026-12-06T16:00:00Z","providerID":"Not An Id","model":"m","inputTokens":1,"outputTokens":0,"cacheWriteTokens":0,"cacheReadTokens":0},
             {"at":"2026-12-06T17:00:00Z","providerID":"claude","model":"m","inputTokens":"many","outputTokens":0,"cacheWriteTokens":0,"cacheReadTokens":0},
             {"at":"2026-12-06T14:00:00Z","providerID":"claude","model":"m","inputTokens":9,"outputTokens":0,"cacheWriteTokens":0,"cacheReadTokens":0},
             {"at":"2026-12-06T18:00:00Z","providerID":"claude","model":"","inputTokens":3,"outputTokens":0,"cacheWriteTokens":0,"cacheReadTokens":0,"costUSD":-1}
            ]}
            """#
        let (ledger, notes) = try decode(text)
        #expect(ledger.rows.map(\.inputTokens) == [1, 3])
        #expect(ledger.rows[1].model == "unknown" && ledger.rows[1].costUSD == nil)
        #expect(notes.count == 7, "\(notes)")
        #expect(notes.contains("rows[1] skipped: its hour is not the start of an hour of 2026-12"))
        #expect(notes.contains("rows[6] skipped: the same hour, account and model as a row before it"))
    }

    @Test("a month is refused when it is another device's, another month, not a ledger, or over 4 MiB")
    func refused() {
        let header = #""month":"2026-12","generatedAt":"2026-12-06T15:00:00Z","rows":[]"#
        #expect(throws: RecordDecodingError.self) { try decode(#"{"deviceID":"desktop",\#(header)}"#) }
        #expect(throws: RecordDecodingError.self) { try decode(#"{\#(header)}"#, month: "2026-11") }
        #expect(throws: RecordDecodingError.self) { try decode("[1, 2]") }
        #expect(throws: RecordDecodingError.self) { try decode(#"{\#(header)}"#, month: "December") }
        let large = #"{\#(header)}"# + String(repeating: " ", count: LedgerCodec.maximumSize)
        #expect(throws: RecordDecodingError.self) { try decode(large) }
        #expect((try? decode(#"{\#(header)}"#)) != nil)
    }

    @Test("a month's last hour is its own, the next month's first is not: December into January")
    func monthEdges() throws {
        func month(_ at: String) -> String {
            #"{"month":"2026-12","generatedAt":"2026-12-31T23:30:00Z","rows":[{"at":"\#(at)","providerID":"claude","model":"m","inputTokens":1,"outputTokens":0,"cacheWriteTokens":0,"cacheReadTokens":0}]}"#
        }
        #expect(try decode(month("2026-12-31T23:00:00Z")).0.rows.count == 1)
        #expect(try decode(month("2027-01-01T00:00:00Z")).0.rows.isEmpty)
        #expect(try decode(month("2026-12-01T00:00:00Z")).0.rows.count == 1)
        #expect(try decode(month("2026-11-30T23:00:00Z")).0.rows.isEmpty)
    }
}
