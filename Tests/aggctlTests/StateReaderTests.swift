import Aggregator
import Foundation
import Notify
import Serialization
import Snapshots
import TestSupport
import Testing

@testable import AggctlCLI

/// aggctl's state files: `publish`'s history read straight from its bytes (`LocalHistory.quickly`, the
/// file's one reader) and both files written directly, against Foundation's decoder and encoder as the
/// oracle: what the reader gives is what Foundation gives, anything it is not sure of it refuses, and
/// what a quick writer writes reads back the same (byte for byte `JSONEncoder`'s, where both order the
/// keys alike).
struct StateReaderTests {
    /// Texts an account key or a window may hold: plain, escaped, non-ASCII, quotes and controls.
    static let texts = [
        "claude:you@example.com", "codex:@laptop-1", "claude:\"quoted\"@x.test", "gemini:back\\slash@x",
        "claude:tab\there@x", "codex:é@ünïcode.test", "claude:😀@x", "claude:nul\u{0}@x", "claude:/slash@x", "",
        "claude:\u{202E}rtl@x", "codex:c1\u{85}@x", "claude:del\u{7F}@x",
    ]

    static func randomDate(_ random: inout SeededGenerator) -> Date {
        // Whole seconds and fractions, as RFC3339.format writes them.
        let seconds = Double(Int.random(in: 1_700_000_000...1_900_000_000, using: &random))
        return Date(
            timeIntervalSince1970: Bool.random(using: &random)
                ? seconds : seconds + Double(Int.random(in: 1...999, using: &random)) / 1000)
    }

    static func randomPercent(_ random: inout SeededGenerator) -> Double {
        switch Int.random(in: 0..<5, using: &random) {
        case 0: return 0
        case 1: return 100
        case 2: return Double(Int.random(in: 0...10000, using: &random)) / 100
        case 3: return Double.random(in: 0...100, using: &random)
        default:
            return [0.1 + 0.2, 1e-300, 5e-324, 1e300, -0.0, 99.99999999999999][Int.random(in: 0..<6, using: &random)]
        }
    }

    static func randomState(_ random: inout SeededGenerator, accounts count: Int) -> LedgerDocument<AlertState> {
        var state = LedgerDocument<AlertState>()
        for index in 0..<count {
            let key = texts[Int.random(in: 0..<texts.count, using: &random)] + "\(index)"
            state.decisions.accounts[key] = AccountAlertState(
                remainingPercent: randomPercent(&random), lastUpdated: randomDate(&random),
                resetsAt: Bool.random(using: &random) ? randomDate(&random) : nil,
                heldRestore: Int.random(in: 0..<4, using: &random) == 0
                    ? HeldRestore(
                        remainingPercent: randomPercent(&random), lastUpdated: randomDate(&random),
                        resetsAt: Bool.random(using: &random) ? randomDate(&random) : nil) : nil,
                armedWarnings: (0..<Int.random(in: 0...3, using: &random)).map { _ in
                    Int.random(in: -5...100, using: &random)
                },
                window: [nil, "weekly", texts[Int.random(in: 0..<texts.count, using: &random)]][
                    Int.random(in: 0..<3, using: &random)],
                absentSince: Bool.random(using: &random) ? randomDate(&random) : nil)
        }
        for index in 0..<Int.random(in: 0...3, using: &random) {
            state.decisions.paceAlerted["\(texts[index])|weekly"] = randomDate(&random)
        }
        return state
    }

    static func foundation<Value: Decodable>(_ data: Data, as type: Value.Type = Value.self) -> Value? {
        try? RecordCodec.makeDecoder().decode(Value.self, from: data)
    }

    /// Printable ASCII only: keys both writers order alike (bytes, and Foundation's sorted keys), and text
    /// neither escapes its own way (controls, DEL).
    static func isPlain(_ text: String) -> Bool { text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } }

    /// Random states written as `JSONEncoder` writes them, compact and indented, are read by `quickly` to
    /// the values Foundation reads, and to the state itself.
    static func readAlike<Value: Codable & Equatable>(
        seed: UInt64, _ make: (inout SeededGenerator, Int) -> Value, _ quickly: (UnsafeRawBufferPointer) -> Value?
    ) throws {
        var random = SeededGenerator(seed: seed)
        for round in 0..<400 {
            let state = make(&random, round % 7)
            let data = try RecordCodec.makeEncoder(pretty: round % 2 == 0).encode(state)
            let read = data.withUnsafeBytes(quickly)
            let quick = try #require(read, "round \(round): \(String(decoding: data, as: UTF8.self))")
            #expect(quick == foundation(data, as: Value.self), "round \(round)")
            #expect(quick == state, "round \(round)")
        }
    }

    /// Random states written as `JSONEncoder` writes them and then damaged (bytes cut, changed, or
    /// `splices` put in) are read by `quickly` as Foundation reads them, or left to it (nil); both happen.
    static func damagedAlike<Value: Codable & Equatable>(
        seed: UInt64, splices: [String], _ make: (inout SeededGenerator, Int) -> Value,
        _ quickly: (UnsafeRawBufferPointer) -> Value?
    ) throws {
        var random = SeededGenerator(seed: seed)
        let splices =
            (splices + [
                "null", "1e400", "1e-400", "12.0", "1e2", "-0", "\"x\"", "[]", "{}", "true", ",", ":", "\\u0041",
            ])
            .map { Array($0.utf8) }
        var accepted = 0
        var left = 0
        for round in 0..<3000 {
            var bytes = [UInt8](
                try RecordCodec.makeEncoder(pretty: round % 2 == 0).encode(make(&random, 1 + round % 3)))
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let at = Int.random(in: 0...bytes.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0 where at < bytes.count: bytes.remove(at: at)
                case 1 where at < bytes.count: bytes[at] = UInt8.random(in: 0...255, using: &random)
                case 2: bytes.insert(contentsOf: splices[Int.random(in: 0..<splices.count, using: &random)], at: at)
                default:
                    // A stretch cut out (a key, a value, a bracket).
                    let end = min(bytes.count, at + Int.random(in: 1...12, using: &random))
                    bytes.removeSubrange(at..<end)
                }
            }
            let data = Data(bytes)
            guard let quick = data.withUnsafeBytes(quickly) else {
                left += 1
                continue
            }
            accepted += 1
            #expect(
                quick == foundation(data, as: Value.self), "round \(round): \(String(decoding: data, as: UTF8.self))")
        }
        #expect(accepted > 100 && left > 100, "accepted \(accepted), left \(left)")
    }

    /// What `encoded` writes of random states reads back to each state with both readers, and is
    /// `JSONEncoder`'s bytes for the states `plain` picks (most of them).
    static func writtenAlike<Value: Codable & Equatable>(
        seed: UInt64, _ make: (inout SeededGenerator, Int) -> Value, _ quickly: (UnsafeRawBufferPointer) -> Value?,
        encoded: (Value) -> Data?, plain: (Value) -> Bool
    ) throws {
        var random = SeededGenerator(seed: seed)
        var identical = 0
        for round in 0..<300 {
            let state = make(&random, round % 9)
            let written = try #require(encoded(state))
            #expect(
                foundation(written, as: Value.self) == state,
                "round \(round): \(String(decoding: written, as: UTF8.self))")
            let read = written.withUnsafeBytes(quickly)
            #expect(read == state, "round \(round)")
            if plain(state) {
                identical += 1
                let reference = try RecordCodec.makeEncoder(pretty: false).encode(state)
                #expect(
                    written == reference,
                    "round \(round):\n\(String(decoding: written, as: UTF8.self))\n\(String(decoding: reference, as: UTF8.self))"
                )
            }
        }
        #expect(identical > 50)
    }

    // MARK: check's ledger

    @Test("the ledger's document is written as JSONEncoder writes it, and read back whole")
    func writtenAsJSONEncoderWrites() throws {
        try Self.writtenAlike(
            seed: 15, Self.randomState, { bytes in Self.foundation(Data(bytes)) }, encoded: { try? $0.encoded() },
            plain: { state in
                state.decisions.accounts.keys.allSatisfy(Self.isPlain)
                    && state.decisions.accounts.values.allSatisfy { $0.window.map(Self.isPlain) ?? true }
                    && state.decisions.paceAlerted.keys.allSatisfy(Self.isPlain)
            })
        var unwritable = AlertState()
        unwritable.accounts["claude:x@y"] = AccountAlertState(
            remainingPercent: .nan, lastUpdated: Date(timeIntervalSince1970: 0), resetsAt: nil)
        #expect(unwritable.quicklyEncodedDocument(outbox: Data("[]".utf8)) == nil)
    }

    @Test("a document with events queued is written with them in place, and a cycle loads it the same")
    func queuedEventsAreWrittenInPlace() throws {
        var random = SeededGenerator(seed: 14)
        var state = Self.randomState(&random, accounts: 3)
        state.outbox.enqueue(
            [
                Notification(
                    id: "e1", kind: "depleted", providerID: "claude", accountEmail: "you@example.com",
                    remainingPercent: 0, resetsAt: nil, title: "t", body: "b",
                    at: Date(timeIntervalSince1970: 1_800_000_000), urgency: .critical)
            ],
            at: Date(timeIntervalSince1970: 1_800_000_000))
        let written = try state.encoded()
        #expect(Self.foundation(written, as: LedgerDocument<AlertState>.self) == state)
        let root = TemporaryDirectory("aggctl-check-state")
        try root.write("state/alerts.json", written)
        let ledger = DeliveryLedger<AlertState>(directory: root.file("state"))
        let loaded = try ledger.cycle { session in
            (session.start, LedgerDocument(decisions: session.decisions, outbox: session.outbox))
        }
        #expect(loaded.0 == .loaded)
        #expect(loaded.1 == state)
    }

    // MARK: publish's history

    static func randomHistory(_ random: inout SeededGenerator, accounts count: Int) -> LocalHistory {
        var history = LocalHistory()
        for index in 0..<count {
            var windows = LocalHistory.WindowHistory()
            func samples() -> [UsageSample] {
                (0..<Int.random(in: 0...6, using: &random)).map { _ in
                    UsageSample(
                        at: randomDate(&random), usedPercent: randomPercent(&random),
                        resetsAt: Bool.random(using: &random) ? randomDate(&random) : nil)
                }
            }
            windows.session = samples()
            windows.weekly = samples()
            history.accounts[texts[Int.random(in: 0..<texts.count, using: &random)] + "\(index)"] = windows
        }
        return history
    }

    @Test("publish's history as aggctl writes it is read quickly, to the values Foundation reads")
    func historiesAreReadAlike() throws {
        try Self.readAlike(seed: 21, Self.randomHistory, LocalHistory.quickly)
    }

    @Test("a damaged or unusual history is read as Foundation reads it, or left to Foundation")
    func damagedHistoriesAreNeverReadOtherwise() throws {
        try Self.damagedAlike(
            seed: 22,
            splices: [
                "\"usedPercent\":1,", "\"at\":\"2026-11-30T12:00:00Z\",", "\"session\":[],", "\"accounts\":{},",
                "{\"at\":\"2026-11-30T12:00:00Z\",\"usedPercent\":5},",
            ], Self.randomHistory, LocalHistory.quickly)
    }

    @Test("publish's history is written as JSONEncoder writes it, and read back whole by both readers")
    func historiesAreWrittenAsJSONEncoderWrites() throws {
        try Self.writtenAlike(
            seed: 23, Self.randomHistory, LocalHistory.quickly, encoded: { $0.quicklyEncoded() },
            plain: { $0.accounts.keys.allSatisfy(Self.isPlain) })
        var unwritable = LocalHistory()
        var windows = LocalHistory.WindowHistory()
        windows.weekly = [UsageSample(at: Date(timeIntervalSince1970: 0), usedPercent: .infinity)]
        unwritable.accounts["codex:x@y"] = windows
        #expect(unwritable.quicklyEncoded() == nil)
    }
}
