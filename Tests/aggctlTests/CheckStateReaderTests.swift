import Aggregator
import Foundation
import Notify
import Snapshots
import TestSupport
import Testing

@testable import AggctlCLI

/// `check`'s state read straight from its bytes (`CheckState.quickly`) against Foundation's decoder,
/// which stays the judge: what the quick reader gives is what Foundation gives, and anything it is not
/// sure of it leaves to Foundation.
struct CheckStateReaderTests {
    /// Texts an account key or a window may hold: plain, escaped, non-ASCII, quotes and controls.
    static let texts = [
        "claude:you@example.com", "codex:@laptop-1", "claude:\"quoted\"@x.test", "gemini:back\\slash@x",
        "claude:tab\there@x", "codex:é@ünïcode.test", "claude:😀@x", "claude:nul\u{0}@x", "claude:/slash@x", "",
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

    static func randomState(_ random: inout SeededGenerator, accounts count: Int) -> CheckState {
        var state = CheckState()
        for index in 0..<count {
            let key = texts[Int.random(in: 0..<texts.count, using: &random)] + "\(index)"
            state.alerts.accounts[key] = AccountAlertState(
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
                    Int.random(in: 0..<3, using: &random)])
        }
        for index in 0..<Int.random(in: 0...3, using: &random) {
            state.alerts.paceAlerted["\(texts[index])|weekly"] = randomDate(&random)
        }
        return state
    }

    static func foundation(_ data: Data) -> CheckState? {
        try? SnapshotCodec.makeDecoder().decode(CheckState.self, from: data)
    }

    static func quick(_ data: Data) -> CheckState? {
        data.withUnsafeBytes { CheckState.quickly(from: $0) }
    }

    @Test("a state as aggctl writes it is read quickly, to the values Foundation reads", arguments: [false, true])
    func writtenStatesAreReadAlike(pretty: Bool) throws {
        var random = SeededGenerator(seed: pretty ? 11 : 12)
        for round in 0..<200 {
            let state = Self.randomState(&random, accounts: round % 7)
            let data = try SnapshotCodec.makeEncoder(pretty: pretty).encode(state)
            let quick = try #require(Self.quick(data), "round \(round): \(String(decoding: data, as: UTF8.self))")
            #expect(quick == Self.foundation(data), "round \(round)")
            #expect(quick == state, "round \(round)")
        }
    }

    @Test("a damaged or unusual state is read as Foundation reads it, or left to Foundation")
    func damagedStatesAreNeverReadOtherwise() throws {
        var random = SeededGenerator(seed: 13)
        // Bytes that change a value's type or form, or repeat a key.
        let splices = [
            "null", "1e400", "1e-400", "12.0", "1e2", "-0", "\"x\"", "[]", "{}", "true", ",", ":", "\\u0041",
            "\"remainingPercent\":1,", "\"lastUpdated\":\"2026-11-30T12:00:00Z\",", "\"schemaVersion\":0,",
            "\"accounts\":{},", "\"outbox\":[1],", "\"a\":{},",
        ].map { Array($0.utf8) }
        var accepted = 0
        var left = 0
        for round in 0..<3000 {
            let state = Self.randomState(&random, accounts: 1 + round % 3)
            var bytes = [UInt8](try SnapshotCodec.makeEncoder(pretty: round % 2 == 0).encode(state))
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
            guard let quick = Self.quick(data) else {
                left += 1
                continue
            }
            accepted += 1
            #expect(quick == Self.foundation(data), "round \(round): \(String(decoding: data, as: UTF8.self))")
        }
        // Both sides of the property were exercised.
        #expect(accepted > 100 && left > 100, "accepted \(accepted), left \(left)")
    }

    @Test("the state is written as JSONEncoder writes it, and read back whole by both readers")
    func writtenAsJSONEncoderWrites() throws {
        var random = SeededGenerator(seed: 15)
        var identical = 0
        for round in 0..<300 {
            let state = Self.randomState(&random, accounts: round % 9)
            let written = try #require(state.quicklyEncoded())
            #expect(Self.foundation(written) == state, "round \(round): \(String(decoding: written, as: UTF8.self))")
            #expect(Self.quick(written) == state, "round \(round)")
            // Byte for byte where the keys sort alike by bytes and by Foundation, and need no escape
            // either writer writes its own way (controls, DEL).
            let plain =
                state.alerts.accounts.keys.allSatisfy { $0.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } }
                && state.alerts.accounts.values.allSatisfy {
                    $0.window.map { $0.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } } ?? true
                }
                && state.alerts.paceAlerted.keys.allSatisfy { $0.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } }
            if plain {
                identical += 1
                let encoded = try SnapshotCodec.makeEncoder(pretty: false).encode(state)
                #expect(
                    written == encoded,
                    "round \(round):\n\(String(decoding: written, as: UTF8.self))\n\(String(decoding: encoded, as: UTF8.self))"
                )
            }
        }
        #expect(identical > 50)
        var unwritable = CheckState()
        unwritable.alerts.accounts["claude:x@y"] = AccountAlertState(
            remainingPercent: .nan, lastUpdated: Date(timeIntervalSince1970: 0), resetsAt: nil)
        #expect(unwritable.quicklyEncoded() == nil)
    }

    @Test("a state with events queued is read by Foundation, written with them in place, and loads the same")
    func queuedEventsAreLeftToFoundation() throws {
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
        let data = try SnapshotCodec.makeEncoder(pretty: false).encode(state)
        #expect(Self.quick(data) == nil)
        // Written with the events in their place, as JSONEncoder writes the whole.
        #expect(state.quicklyEncoded().flatMap(Self.foundation) == state)
        let root = TemporaryDirectory("aggctl-check-state")
        try root.write("state/alerts.json", data)
        let file = StateFile(directory: root.file("state"))
        #expect(try file.load(CheckState.self, quickly: CheckState.quickly) == .loaded(state))
    }
}
