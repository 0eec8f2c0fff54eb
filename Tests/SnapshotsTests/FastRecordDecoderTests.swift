import Foundation
import Snapshots
import TestSupport
import Testing

/// The fast reader against Foundation's decoder, the reference: same records, same notes, same rejections.
struct FastRecordDecoderTests {
    enum Outcome: Equatable {
        case accepted(DecodedRecord)
        case rejected(String)

        var isSyntaxRejection: Bool {
            if case .rejected(let reason) = self { return reason.hasPrefix("not valid JSON") }
            return false
        }
    }

    static func fast(_ data: Data, keepHistory: Bool = true) -> Outcome {
        do {
            return .accepted(
                try RecordCodec.decode(data, fileName: "dev-0.json", history: keepHistory ? .full : .skip))
        } catch {
            return .rejected(error.reason)
        }
    }

    static func foundation(_ data: Data) -> Outcome {
        do {
            return .accepted(try RecordCodec.decodeWithFoundation(data, fileName: "dev-0.json"))
        } catch {
            return .rejected(error.reason)
        }
    }

    /// Same acceptance and records; for rejections the same reason, but for the fast reader's byte offset
    /// and its one deliberate difference in words: a number too large for its field is "out of range"
    /// where Foundation says "not valid JSON".
    static func agree(_ fast: Outcome, _ reference: Outcome) -> Bool {
        switch (fast, reference) {
        case (.accepted(var a), .accepted(let b)):
            a.notes = a.notes.map(foundationWords)
            return a == b
        case (.rejected(let a), .rejected(let b)):
            return foundationWords(
                a.replacingOccurrences(of: #" \(at byte \d+\)"#, with: "", options: .regularExpression))
                == b
        default: return false
        }
    }

    static func foundationWords(_ reason: String) -> String {
        reason.replacingOccurrences(
            of: #"'[^']*' is (out of range|not a whole number)"#, with: "not valid JSON", options: .regularExpression
        ).replacingOccurrences(
            of: #"nested deeper than \d+ arrays and objects; not read"#, with: "not valid JSON",
            options: .regularExpression)
    }

    @Test("random records of every field decode to the same values through both readers")
    func generatedRecords() throws {
        var generator = SeededGenerator(seed: 2026)
        for index in 0..<400 {
            let snapshot = RandomRecords.snapshot(index, using: &generator)
            let data = try RecordCodec.encode(snapshot)
            let fast = Self.fast(data)
            #expect(fast == .accepted(DecodedRecord(snapshot: snapshot, notes: [])))
            #expect(Self.agree(fast, Self.foundation(data)))
            // Compact output (no whitespace) reads the same.
            let compact = try RecordCodec.encode(snapshot, pretty: false)
            #expect(Self.fast(compact) == fast)
        }
    }

    @Test("members in any order read the same: each object of a random record written with its keys shuffled")
    func membersInAnyOrder() throws {
        var generator = SeededGenerator(seed: 37)
        for index in 0..<200 {
            let snapshot = RandomRecords.snapshot(index, using: &generator)
            let tree = try JSONSerialization.jsonObject(
                with: RecordCodec.encode(snapshot), options: [.fragmentsAllowed])
            let shuffled = Data(Self.text(of: tree, shuffling: &generator).utf8)
            #expect(Self.fast(shuffled) == .accepted(DecodedRecord(snapshot: snapshot, notes: [])))
        }
    }

    /// JSON text of a tree from `JSONSerialization`, each object's members in a random order.
    private static func text(of value: Any, shuffling generator: inout SeededGenerator) -> String {
        switch value {
        case let object as [String: Any]:
            let members = object.keys.sorted().shuffled(using: &generator).map { key in
                "\(text(of: key, shuffling: &generator)):\(text(of: object[key]!, shuffling: &generator))"
            }
            return "{" + members.joined(separator: ",") + "}"
        case let array as [Any]:
            return "[" + array.map { text(of: $0, shuffling: &generator) }.joined(separator: ",") + "]"
        default:
            let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])
            return data.map { String(decoding: $0, as: UTF8.self) } ?? "null"
        }
    }

    @Test("mutated records: the fast reader agrees with Foundation, or is stricter about syntax, never laxer")
    func mutatedRecords() throws {
        var generator = SeededGenerator(seed: 7)
        let alphabet = Array("{}[]\",:\\0123456789.eE-+ntfaluxr \n\u{7F}".utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xFF]
        var agreed = 0
        var stricter = 0
        for index in 0..<1500 {
            var bytes = [UInt8](try RecordCodec.encode(RandomRecords.snapshot(index, using: &generator)))
            ByteMutation.mutate(&bytes, alphabet: alphabet, using: &generator)
            if bytes.isEmpty { bytes = [0x7B] }
            let data = Data(bytes)
            let fast = Self.fast(data)
            let reference = Self.foundation(data)
            if Self.agree(fast, reference) {
                agreed += 1
            } else {
                #expect(
                    fast.isSyntaxRejection,
                    "fast: \(fast)\nfoundation: \(reference)\n\(String(decoding: data, as: UTF8.self))")
                stricter += 1
            }
        }
        #expect(agreed > 1200)
    }

    @Test(
        "edge cases both readers treat alike",
        arguments: [
            #"{"generatedAt": "2026-11-30T12:00:00Z", "providers": [{"providerID": "a", "lastUpdated": "2026-11-30T12:00:00Z", "session": {"usedPercent": 1e2, "windowMinutes": 3e2}}]}"#,
            #"{"generatedAt": "2026-11-30T12:00:00Z", "providers": [{"providerID": "a", "lastUpdated": "2026-11-30T12:00:00Z", "session": {"usedPercent": 1, "windowMinutes": 1.5}}]}"#,
            #"{"generatedAt": "2026-11-30T12:00:00Z", "providers": [{"providerID": "a", "lastUpdated": "2026-11-30T12:00:00Z", "tokens": {"today": 9223372036854775807}}]}"#,
            #"{"generatedAt": "2026-11-30T12:00:00Z", "providers": [{"providerID": "a", "lastUpdated": "2026-11-30T12:00:00Z", "tokens": {"today": -9223372036854775808}}]}"#,
            #"{"generatedAt": "2026-11-30T12:00:00Z", "providers": [{"providerID": "a", "lastUpdated": "2026-11-30T12:00:00Z", "session": {"usedPercent": 1e-400}}]}"#,
            #"{"generatedAt": "2026-11-30T12:00:00Z", "providers": [{"providerID": "a", "lastUpdated": "2026-11-30T12:00:00Z", "session": {"usedPercent": 0.30000000000000004}}]}"#,
            #"{"generatedAt": "2026-11-30T12:00:00Z", "providers": [{"providerID": "a", "lastUpdated": "2026-11-30T12:00:00Z", "session": {"usedPercent": 123456789012345678901234567890}}]}"#,
            #"{"generatedAt": "2026-11-30T12:00:00Z", "providers": [{"providerID": "a", "lastUpdated": "2026-11-30T12:00:00Z", "session": {"usedPercent": -0}}]}"#,
            #"{"generatedAt": "2026-11-30T12:00:00Z", "providers": [null, 3, "x", [], {"providerID": "a", "lastUpdated": "2026-11-30T12:00:00Z"}]}"#,
            #"{"generatedAt": "2026-11-30T12:00:00Z", "providers": [{"providerID": "a", "providerID": 5, "lastUpdated": "2026-11-30T12:00:00Z"}]}"#,
            #"{"generatedAt": "2026-11-30T12:00:00Z", "generatedAt": "bad", "providers": [{"providerID": "a", "lastUpdated": "2026-11-30T12:00:00Z"}]}"#,
            #"{"generatedAt": 5, "deviceID": 3, "providers": 7}"#,
            #"{"deviceID": 3, "generatedAt": 5}"#,
            #"{"generatedAt": "2026-11-30T12:00:00Z", "providers": [{"providerID": "a", "lastUpdated": "2026-11-30T12:00:00Z", "session": null, "weekly": {"usedPercent": null}}]}"#,
            #"{"generatedAt": "2026-11-30T12:00:00Z", "providers": [{"providerID": "a", "lastUpdated": "2026-11-30T12:00:00Z", "modelWeekly": [{"name": "opus", "window": {"usedPercent": 1}}, {"name": "x"}]}]}"#,
            #"{"generatedAt": "2026-11-30T12:00:00Z", "providers": [{"providerID": "a", "lastUpdated": "2026-11-30T12:00:00Z", "weeklySamples": [{"at": "x", "usedPercent": 1}]}]}"#,
            #"{"generatedAt": "2026-11-30T12:00:00Z", "providers": [{"providerID": "a", "lastUpdated": "2026\u002d11-30T12:00:00Z", "plan": "\ud83d\ude00 \u00e9\n"}]}"#,
            #"{"\u0067eneratedAt": "2026-11-30T12:00:00Z", "providers": [{"providerID": "a", "lastUpdated": "2026-11-30T12:00:00Z"}]}"#,
            // A key that looks like a member's at a glance (length, first, middle and last bytes) but is not.
            #"{"generatedAt": "2026-11-30T12:00:00Z", "providers": [{"providerID": "a", "lastUpdated": "2026-11-30T12:00:00Z", "session": {"usedPercant": 7, "usedPercent": 1}}]}"#,
            #"{"generatedAt": "2026-11-30T12:00:00Z", "providers": [{"providerID": "a", "lastUpdated": "2026-11-30T12:00:00Z", "session": {"usedPercant": 7}}]}"#,
            #"{"generatedAt": "2026-11-30T12:00:00Z", "providers": [{"lastUpdated": "2026-11-30T12:00:00Z", "limits": [{"binding": true, "usedPercent": 5, "label": "Spend", "\u0069d": "spend-monthly"}], "providerID": "a"}]}"#,
            #"{"generatedAt": "2026-11-30T12:00:00Z", "providers": [{"providerID": "a", "lastUpdated": "2026-11-30T12:00:00Z", "": 1, "p": 2}]}"#,
            #"{"generatedAt": "2026-11-30T12:00:00+05:30", "providers": [{"providerID": "a", "lastUpdated": "2026-11-30T12:00:00.123456789-01:00"}], "extra": {"deep": [[[[{"x": [true, false, null, -1.5e-3]}]]]]}}"#,
            "\u{FEFF}{\"generatedAt\": \"2026-11-30T12:00:00Z\", \"providers\": [{\"providerID\": \"a\", \"lastUpdated\": \"2026-11-30T12:00:00Z\"}]}",
            #"{"generatedAt": "2026-11-30T12:00:00Z", "providers": [{"providerID": "a", "lastUpdated": "2026-11-30T12:00:00Z"}]} trailing"#,
            "", "null", "[]", "\"text\"", "{}", "{\"providers\": null, \"generatedAt\": null}",
            #"{"generatedAt": "2026-11-30T12:00:00Z", "providers": [{"providerID": "a", "lastUpdated": "2026-11-30T12:00:00Z", "tokens": {"daily": [{"date": "2026-11-30"}]}}]}"#,
        ])
    func edgeCases(text: String) {
        let data = Data(text.utf8)
        #expect(
            Self.agree(Self.fast(data), Self.foundation(data)),
            "fast: \(Self.fast(data))\nfoundation: \(Self.foundation(data))")
    }

    @Test(
        "a number too large for its field is 'out of range', where Foundation says 'not valid JSON'; its member is left out",
        arguments: [
            (#""tokens": {"today": 9223372036854775808}"#, "providers[0].tokens.today"),
            (#""tokens": {"today": 1e30}"#, "providers[0].tokens.today"),
            (#""session": {"usedPercent": 1e400}"#, "providers[0].session.usedPercent"),
        ])
    func outOfRange(field: String, path: String) throws {
        let text =
            #"{"generatedAt": "2026-11-30T12:00:00Z", "providers": [{"providerID": "a", "lastUpdated": "2026-11-30T12:00:00Z", "#
            + field + "}]}"
        let data = Data(text.utf8)
        let member = path.split(separator: ".").prefix(2).joined(separator: ".")
        guard case .accepted(let fast) = Self.fast(data), case .accepted(let reference) = Self.foundation(data) else {
            Issue.record("the entry is kept without the member: \(Self.fast(data)) \(Self.foundation(data))")
            return
        }
        #expect(fast.notes == ["'\(member)' is left out: '\(path)' is out of range"])
        #expect(reference.notes == ["'\(member)' is left out: not valid JSON"])
        #expect(fast.snapshot == reference.snapshot && fast.snapshot.providers.map(\.providerID) == ["a"])
    }

    @Test(
        "malformed JSON in a skipped value is rejected, where Foundation lets it through",
        arguments: [
            (
                #"{"generatedAt": "2026-11-30T12:00:00Z", "x": [1,], "providers": [{"providerID": "a", "lastUpdated": "2026-11-30T12:00:00Z"}]}"#,
                "trailing comma"
            ),
            (
                #"{"generatedAt": "2026-11-30T12:00:00Z", "providers": [{"providerID": "a", "lastUpdated": "2026-11-30T12:00:00Z"},]}"#,
                "trailing comma in providers"
            ),
            (
                #"{"generatedAt": "2026-11-30T12:00:00Z", "x": "\q", "providers": [{"providerID": "a", "lastUpdated": "2026-11-30T12:00:00Z"}]}"#,
                "bad escape"
            ),
            (
                #"{"generatedAt": "2026-11-30T12:00:00Z", "x": "\ud800", "providers": [{"providerID": "a", "lastUpdated": "2026-11-30T12:00:00Z"}]}"#,
                "lone surrogate"
            ),
            (
                #"{"generatedAt": "2026-11-30T12:00:00Z", "providers": [{"providerID": "a", "lastUpdated": "2026-11-30T12:00:00Z", "plan": "\ud800"}]}"#,
                "lone surrogate in a field (Foundation skips the entry)"
            ),
            (
                #"{"generatedAt": "2026-11-30T12:00:00Z", "x": 012, "providers": [{"providerID": "a", "lastUpdated": "2026-11-30T12:00:00Z"}]}"#,
                "leading zero"
            ),
            (
                "{\"generatedAt\": \"2026-11-30T12:00:00Z\", \"x\": \"\u{01}\", \"providers\": [{\"providerID\": \"a\", \"lastUpdated\": \"2026-11-30T12:00:00Z\"}]}",
                "control character"
            ),
        ])
    func stricterThanFoundation(text: String, what: String) {
        let data = Data(text.utf8)
        #expect(Self.fast(data).isSyntaxRejection, "\(what)")
        #expect(!Self.foundation(data).isSyntaxRejection, "\(what): Foundation has become strict too; move this case")
    }

    @Test("invalid UTF-8 inside an unknown key's string is rejected")
    func invalidUTF8InSkippedString() {
        var bytes = Array(#"{"generatedAt": "2026-11-30T12:00:00Z", "x": ""#.utf8)
        bytes += [0xC0, 0xAF]
        bytes += Array(#"", "providers": [{"providerID": "a", "lastUpdated": "2026-11-30T12:00:00Z"}]}"#.utf8)
        #expect(Self.fast(Data(bytes)) == .rejected("not valid JSON (at byte 46)"))
    }

    @Test("history (samples, per-day tokens) is validated but not kept when a merge does not need it")
    func historyDropped() throws {
        var generator = SeededGenerator(seed: 11)
        var snapshot = RandomRecords.snapshot(0, using: &generator)
        snapshot.providers[0].weeklySamples = [UsageSample(at: snapshot.generatedAt, usedPercent: 5)]
        let data = try RecordCodec.encode(snapshot)
        guard case .accepted(let record) = Self.fast(data, keepHistory: false) else {
            Issue.record("not accepted")
            return
        }
        #expect(record.snapshot.providers.allSatisfy { $0.weeklySamples == nil && $0.sessionSamples == nil })
        var withoutHistory = snapshot
        for index in withoutHistory.providers.indices {
            withoutHistory.providers[index].weeklySamples = nil
            withoutHistory.providers[index].sessionSamples = nil
            withoutHistory.providers[index].tokens?.daily = nil
        }
        #expect(record.snapshot == withoutHistory)
        let broken = Data(
            String(decoding: data, as: UTF8.self).replacingOccurrences(
                of: "\"weeklySamples\" : [", with: "\"weeklySamples\" : [,"
            ).utf8)
        #expect(Self.fast(broken, keepHistory: false).isSyntaxRejection)
    }
}
