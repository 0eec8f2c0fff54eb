import Foundation
import Snapshots
import TestSupport
import Testing

struct RecordCodecTests {
    static let full = DeviceSnapshot(
        deviceID: Records.id("studio-mac"), deviceName: "studio-mac", appVersion: "aggctl 0.1.0",
        generatedAt: Records.date("2026-11-30T12:00:00Z"),
        providers: [
            ProviderUsage(
                providerID: "claude", accountEmail: "you@example.com", plan: "Max 5x",
                lastUpdated: Records.date("2026-11-30T11:59:00.500Z"),
                session: UsageWindow(
                    usedPercent: 37.5, windowMinutes: 300, resetsAt: Records.date("2026-11-30T14:00:00Z")),
                weekly: UsageWindow(usedPercent: 60, windowMinutes: 10080),
                limits: [Limit(id: "opus-weekly", label: "Opus", windowMinutes: 10080, usedPercent: 81)],
                tokens: TokenUsage(
                    today: 10, last30Days: 300, daily: [DailyTokens(date: "2026-11-30", tokens: 10, costUSD: 0.5)]),
                costUSD: CostUsage(today: 0.5, last30Days: 12.25),
                weeklySamples: [UsageSample(at: Records.date("2026-11-30T09:00:00Z"), usedPercent: 55)],
                error: nil),
            ProviderUsage(providerID: "codex", lastUpdated: Records.date("2026-11-30T11:00:00Z"), error: "signed out"),
        ])

    /// `snapshot` with every text made of characters a writer must take care with (controls, quotes,
    /// backslashes, slashes, DEL, characters of two to four bytes), every number any finite double or
    /// integer, and dates with fractions of a second.
    static func hostile(_ snapshot: DeviceSnapshot, using g: inout SeededGenerator) -> DeviceSnapshot {
        let scalars: [Unicode.Scalar] =
            (0..<0x20).map { Unicode.Scalar(UInt8($0)) } + ["\"", "\\", "/", "\u{7F}", "a", "é", "€", "😀", "\u{2028}"]
        func text(_ g: inout SeededGenerator) -> String {
            String(
                String.UnicodeScalarView(
                    (0..<Int.random(in: 0...12, using: &g)).map { _ in scalars.randomElement(using: &g)! }))
        }
        func number(_ g: inout SeededGenerator) -> Double {
            for _ in 0..<8 {
                let any = Double(bitPattern: g.next())
                if any.isFinite { return any }
            }
            return -0.0
        }
        func moment(_ date: Date, _ g: inout SeededGenerator) -> Date {
            date.addingTimeInterval(Double(Int.random(in: 0..<1000, using: &g)) / 1000)
        }
        var hostile = snapshot
        hostile.deviceName = text(&g)
        hostile.appVersion = hostile.appVersion.map { _ in text(&g) }
        hostile.generatedAt = moment(snapshot.generatedAt, &g)
        hostile.providers = snapshot.providers.map { usage in
            var usage = usage
            usage.accountEmail = usage.accountEmail.map { _ in text(&g) }
            usage.plan = usage.plan.map { _ in text(&g) }
            usage.error = usage.error.map { _ in text(&g) }
            usage.lastUpdated = moment(usage.lastUpdated, &g)
            usage.session?.usedPercent = number(&g)
            usage.weekly?.usedPercent = number(&g)
            usage.weekly?.windowMinutes = Int.random(in: Int.min...Int.max, using: &g)
            usage.costUSD = usage.costUSD.map { _ in CostUsage(today: number(&g), last30Days: number(&g)) }
            usage.tokens?.today = Int.random(in: Int.min...Int.max, using: &g)
            usage.weeklySamples = usage.weeklySamples?.map {
                UsageSample(at: moment($0.at, &g), usedPercent: number(&g), resetsAt: moment($0.at, &g))
            }
            usage.limits = usage.limits?.map { limit in
                var limit = limit
                limit.label = text(&g)
                limit.unit = limit.unit.map { _ in text(&g) }
                return limit
            }
            return usage
        }
        return hostile
    }

    @Test(
        "a record, compact or indented, is byte for byte what JSONEncoder writes, for random and hostile records",
        arguments: [false, true])
    func recordsMatchTheEncoder(pretty: Bool) throws {
        var generator = SeededGenerator(seed: 40)
        for index in 0..<3000 {
            var snapshot = RandomRecords.snapshot(index, using: &generator)
            if index % 2 == 1 { snapshot = Self.hostile(snapshot, using: &generator) }
            if index % 7 == 3 { snapshot.providers[0].limits = [] }
            let written = try RecordCodec.encode(snapshot, pretty: pretty)
            let encoded = try RecordCodec.encodeWithFoundation(snapshot, pretty: pretty)
            #expect(written == encoded, "\(String(decoding: encoded, as: UTF8.self))")
            if written != encoded { break }
        }
        for (value, name) in [(Double.nan, "nan"), (.infinity, "inf"), (-.infinity, "-inf")] {
            var snapshot = Self.full
            snapshot.providers[0].weekly?.usedPercent = value
            #expect(throws: EncodingError.self, "\(name)") { try RecordCodec.encode(snapshot, pretty: false) }
            #expect(throws: EncodingError.self, "\(name)") { try RecordCodec.encodeWithFoundation(snapshot) }
        }
    }

    private func decode(_ text: String, fileName: String = "studio-mac.json") throws -> DecodedRecord {
        try RecordCodec.decode(Data(text.utf8), fileName: fileName)
    }

    private func reason(_ text: String, fileName: String = "studio-mac.json") -> String? {
        do {
            _ = try decode(text, fileName: fileName)
            return nil
        } catch let error as RecordDecodingError {
            return error.reason
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test("a record survives a write and a read unchanged")
    func roundTrip() throws {
        let data = try RecordCodec.encode(Self.full)
        let decoded = try RecordCodec.decode(data, fileName: "studio-mac.json")
        #expect(decoded.snapshot == Self.full)
        #expect(decoded.notes.isEmpty)
        #expect(try RecordCodec.encode(decoded.snapshot) == data)
    }

    @Test("writing is canonical: sorted keys, UTC dates with Z, schemaVersion, a final newline")
    func canonicalWriting() throws {
        let text = String(decoding: try RecordCodec.encode(Self.full), as: UTF8.self)
        #expect(text.hasSuffix("}\n"))
        #expect(text.contains("\"lastUpdated\" : \"2026-11-30T11:59:00.500Z\""))
        #expect(text.contains("\"schemaVersion\" : 2"))
        let keys = ["appVersion", "deviceID", "deviceName", "generatedAt", "providers", "schemaVersion"]
        let positions = keys.map { text.range(of: "\"\($0)\"")!.lowerBound }
        #expect(positions == positions.sorted())
    }

    @Test("reading tolerates offsets, fractions, unknown keys and a missing deviceID or schemaVersion")
    func tolerantReading() throws {
        let record = try decode(
            """
            {"generatedAt": "2026-11-30T13:00:00.123+01:00", "futureField": {"x": [1, 2]},
             "providers": [{"providerID": "Claude ", "lastUpdated": "2026-11-30T12:00:00Z", "newThing": true,
                            "session": {"usedPercent": 12, "color": "red"}}]}
            """, fileName: "old-laptop.json")
        #expect(record.snapshot.deviceID.rawValue == "old-laptop")
        #expect(record.snapshot.deviceName == "old-laptop")
        #expect(record.snapshot.schemaVersion == 1)
        #expect(record.snapshot.generatedAt == Records.date("2026-11-30T12:00:00.123Z"))
        #expect(record.snapshot.providers.map(\.providerID) == ["claude"])
        #expect(record.notes.isEmpty)
    }

    @Test("a newer schemaVersion is read when its fields decode, and reported")
    func newerSchema() throws {
        let record = try decode(
            """
            {"schemaVersion": 7, "deviceID": "studio-mac", "generatedAt": "2026-11-30T12:00:00Z",
             "providers": [{"providerID": "codex", "lastUpdated": "2026-11-30T12:00:00Z"}]}
            """)
        #expect(record.snapshot.schemaVersion == 7)
        #expect(record.notes == ["schemaVersion 7 is newer than this reader's 2; read the fields it knows"])
    }

    @Test("an unusable provider entry is skipped with a note; the others are kept")
    func skipsBadProviders() throws {
        let record = try decode(
            """
            {"deviceID": "studio-mac", "generatedAt": "2026-11-30T12:00:00Z", "providers": [
              {"providerID": "claude"},
              {"providerID": "codex", "lastUpdated": "2026-11-30T12:00:00Z"},
              {"providerID": "Bad Id!", "lastUpdated": "2026-11-30T12:00:00Z"}]}
            """)
        #expect(record.snapshot.providers.map(\.providerID) == ["codex"])
        #expect(
            record.notes == [
                "skipped providers[0]: missing 'lastUpdated' at 'providers[0]'",
                "skipped providers[2]: a provider id has only lowercase letters, digits and '-'",
            ])
    }

    @Test(
        "each rejection says why in one line",
        arguments: [
            ("not json at all", "not valid JSON (at byte 0)"),
            ("{\"deviceID\": \"x\"", "not valid JSON (at byte 16)"),
            ("[]", "'' is not an object"),
            ("{\"deviceID\": \"x\", \"providers\": []}", "missing 'generatedAt'"),
            ("{\"generatedAt\": \"2026-11-30T12:00:00Z\"}", "missing 'providers'"),
            ("{\"generatedAt\": \"noon\", \"providers\": []}", "'noon' is not an RFC 3339 date at 'generatedAt'"),
            ("{\"generatedAt\": \"2026-11-30T12:00:00Z\", \"providers\": []}", "no usable providers"),
            (
                "{\"generatedAt\": \"2026-11-30T12:00:00Z\", \"providers\": [{\"providerID\": 3}]}",
                "no usable providers (skipped providers[0]: 'providers[0].providerID' is not a string)"
            ),
            (
                "{\"deviceID\": \"../../etc/x\", \"generatedAt\": \"2026-11-30T12:00:00Z\", \"providers\": []}",
                "invalid deviceID '../../etc/x': a device id cannot start with '.'"
            ),
            (
                "{\"deviceID\": \"a b\", \"generatedAt\": \"2026-11-30T12:00:00Z\", \"providers\": []}",
                "invalid deviceID 'a b': a device id has only letters, digits, '.', '_' and '-'"
            ),
            (
                "{\"schemaVersion\": 0, \"generatedAt\": \"2026-11-30T12:00:00Z\", \"providers\": []}",
                "schemaVersion 0 is not a valid version"
            ),
            (
                "{\"generatedAt\": \"2026-11-30T12:00:00Z\", \"providers\": [{\"providerID\": \"a\", "
                    + "\"lastUpdated\": 1e999, \"session\": {\"usedPercent\": 1}}]}",
                "no usable providers (skipped providers[0]: 'providers[0].lastUpdated' is not a string)"
            ),
            ("{\"generatedAt\": \"2026-11-30T12:00:00Z\", \"providers\": [NaN]}", "not valid JSON (at byte 54)"),
        ])
    func rejections(text: String, expected: String) {
        #expect(reason(text) == expected)
        // Foundation's reader, the reference, gives the same reason without the byte offset.
        let withoutOffset = expected.replacingOccurrences(
            of: #" \(at byte \d+\)"#, with: "", options: .regularExpression)
        // ... and "not valid JSON" for a number too large for its field (the fast reader: "out of range").
        #expect(foundationReason(text) == FastRecordDecoderTests.foundationWords(withoutOffset))
    }

    private func foundationReason(_ text: String) -> String? {
        do {
            _ = try RecordCodec.decodeWithFoundation(Data(text.utf8), fileName: "studio-mac.json")
            return nil
        } catch {
            return error.reason
        }
    }

    @Test("valid JSON a field cannot hold says what it is: a fraction, a number out of range, nesting too deep")
    func validButUnusable() {
        func entry(_ session: String) -> String {
            #"{"generatedAt": "2026-11-30T12:00:00Z", "providers": [{"providerID": "claude", "lastUpdated": "2026-11-30T12:00:00Z", "session": \#(session)}]}"#
        }
        func notes(_ text: String) -> [String] {
            (try? RecordCodec.decode(Data(text.utf8), fileName: "studio-mac.json").notes) ?? ["refused"]
        }
        #expect(
            notes(entry(#"{"usedPercent": 10, "windowMinutes": 1.5}"#))
                == ["'providers[0].session' is left out: 'providers[0].session.windowMinutes' is not a whole number"])
        #expect(
            notes(entry(#"{"usedPercent": 1e-400}"#))
                == ["'providers[0].session' is left out: 'providers[0].session.usedPercent' is out of range"])
        let deep =
            #"{"generatedAt": "2026-11-30T12:00:00Z", "x": "# + String(repeating: "[", count: 600)
            + String(repeating: "]", count: 600) + "}"
        #expect(reason(deep)?.hasPrefix("nested deeper than 512 arrays and objects") == true)
    }

    @Test("invalid UTF-8 and deep nesting are refused without a crash")
    func hostileInput() {
        var bytes = Array("{\"deviceID\": \"".utf8)
        bytes += [0xFF, 0xFE]
        bytes += Array("\", \"generatedAt\": \"2026-11-30T12:00:00Z\", \"providers\": []}".utf8)
        #expect(throws: RecordDecodingError.self) { try RecordCodec.decode(Data(bytes), fileName: "x.json") }
        let deep =
            "{\"generatedAt\": \"2026-11-30T12:00:00Z\", \"providers\": "
            + String(repeating: "[", count: 300_000) + String(repeating: "]", count: 300_000) + "}"
        // The 513th open container is one too many (the top-level object is the first).
        #expect(reason(deep) == "nested deeper than 512 arrays and objects (at byte 565); not read")
    }

    @Test("a reason quotes record text without control characters and cut short")
    func printableReasons() {
        let long = String(repeating: "z", count: 200)
        let text = "{\"deviceID\": \"\(long)\\n\", \"generatedAt\": \"2026-11-30T12:00:00Z\", \"providers\": []}"
        let message = reason(text) ?? ""
        #expect(!message.contains("\n"))
        #expect(message.count < 150)
    }

    @Test("values out of range are reported naming the field, through both readers alike")
    func outOfRange() throws {
        let text = """
            {"generatedAt": "2026-11-30T12:00:00Z", "providers": [
              {"providerID": "claude", "lastUpdated": "2026-11-30T12:00:00Z",
               "session": {"usedPercent": 150, "windowMinutes": 0, "resetsAt": "0000-01-01T00:00:00Z"},
               "weekly": {"usedPercent": 1e29}, "modelWeekly": [{"name": "opus", "window": {"usedPercent": -50}}],
               "tokens": {"today": -5, "last30Days": 10}, "costUSD": {"today": -1.5}},
              {"providerID": "codex", "lastUpdated": "0000-01-01T00:00:00Z"}]}
            """
        let data = Data(text.utf8)
        let fast = try RecordCodec.decode(data, fileName: "laptop.json")
        #expect(try RecordCodec.decodeWithFoundation(data, fileName: "laptop.json") == fast)
        #expect(
            fast.notes == [
                "providers[0].session.usedPercent 150.0 is outside 0...100; remaining clamped",
                "providers[0].session.windowMinutes 0 is not a positive length; ignored",
                "providers[0].session.resetsAt 0001-01-01T00:00:00Z is out of range (2000...2200); ignored",
                "providers[0].weekly.usedPercent 1e+29 is outside 0...100; remaining clamped",
                "providers[0].modelWeekly[0].window.usedPercent -50.0 is outside 0...100; remaining clamped",
                "providers[0].tokens.today -5 is negative; ignored",
                "providers[0].costUSD.today -1.5 is negative; ignored",
                "skipped providers[1]: lastUpdated 0001-01-01T00:00:00Z is out of range (2000...2200)",
            ])
        let entry = try #require(fast.snapshot.providers.first)
        #expect(entry.session?.windowMinutes == nil && entry.session?.resetsAt == nil)
        #expect(entry.tokens?.today == nil && entry.tokens?.last30Days == 10)
        #expect(fast.snapshot.providers.count == 1)
        #expect(
            reason(
                #"{"generatedAt": "0000-01-01T00:00:00Z", "providers": [{"providerID": "a", "lastUpdated": "2026-11-30T12:00:00Z"}]}"#
            )
                == "generatedAt 0001-01-01T00:00:00Z is out of range (2000...2200)")
    }
}
