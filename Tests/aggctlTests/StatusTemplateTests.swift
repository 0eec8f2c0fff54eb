import Aggregator
import Foundation
import Portable
import Serialization
import Snapshots
import Stores
import TestSupport
import Testing

@testable import AggctlCLI

/// `status --json` answered from the document an earlier run kept (`StatusTemplate`).
struct StatusTemplateTests {
    /// A store of random records, old enough on disk for the caches to trust them.
    func randomStore(in harness: Harness, records count: Int, seed: UInt64) throws -> [DeviceSnapshot] {
        var generator = SeededGenerator(seed: seed)
        let snapshots = (0..<count).map { RandomRecords.snapshot($0, using: &generator) }
        for snapshot in snapshots {
            let path = try harness.home.write("store/" + snapshot.deviceID.recordName, Records.json(snapshot))
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: -600)], ofItemAtPath: path)
        }
        return snapshots
    }

    /// Runs `status --json` three times: the first keeps the parse cache, the second finds the store the
    /// same and keeps the memo, the third takes the memo and keeps the document.
    func keepDocument(_ harness: Harness, _ arguments: [String]) throws -> String {
        _ = harness.run(arguments)
        _ = harness.run(arguments)
        #expect(harness.home.entries("state/aggctl/cache").filter { $0.hasSuffix(".status") }.isEmpty)
        _ = harness.run(arguments)
        let kept = harness.home.entries("state/aggctl/cache").filter { $0.hasSuffix(".status") }
        try #require(kept.count == 1, "the third run keeps the document")
        return harness.home.file("state/aggctl/cache/" + kept[0])
    }

    /// A store of `records` random records with its document kept, judged at one fixed moment.
    func keptStore(records: Int, seed: UInt64) throws -> (harness: Harness, arguments: [String], path: String) {
        let harness = Harness()
        _ = try randomStore(in: harness, records: records, seed: seed)
        let arguments = ["status", "--store", harness.home.file("store"), "--json", "--now", "2026-12-02T00:00:00Z"]
        return (harness, arguments, try keepDocument(harness, arguments))
    }

    /// Keeps `document` (no moment-dependent values in it) at `path` as the document for `key`.
    func keep(_ document: String, for key: StatusTemplate.Key, at path: String) throws {
        try Array(document.utf8).withUnsafeBytes { try StatusTemplate.save($0, marks: [], key: key, to: path) }
    }

    /// A harness whose runs never find or keep caches (its state folder cannot be created).
    func uncached() -> Harness {
        var harness = Harness()
        harness.environment["XDG_STATE_HOME"] = "/dev/null/no-state"
        return harness
    }

    /// Moments on both sides of every change in a merge of `snapshots`: staleness of each entry and
    /// device, each window's first pace (3 % elapsed), its reset and one window before it, and each
    /// entry's clock-skew limit.
    func edges(of snapshots: [DeviceSnapshot], staleAfter: TimeInterval = 3600, maxSkew: TimeInterval = 300) -> [Date] {
        var moments: [Date] = []
        for snapshot in snapshots {
            moments.append(snapshot.generatedAt.addingTimeInterval(staleAfter))
            for provider in snapshot.providers {
                moments.append(provider.lastUpdated.addingTimeInterval(staleAfter))
                moments.append(provider.lastUpdated.addingTimeInterval(-maxSkew))
                let windows =
                    [provider.session, provider.weekly].compactMap { $0 }
                    + (provider.limits ?? []).map(\.window)
                for window in windows {
                    guard let resetsAt = window.resetsAt, let minutes = window.windowMinutes else { continue }
                    let duration = Double(minutes) * 60
                    moments += [resetsAt, resetsAt.addingTimeInterval(-duration)]
                    moments.append(resetsAt.addingTimeInterval(-duration * (1 - Pace.minimumElapsedFraction)))
                }
            }
        }
        return moments.flatMap { [$0.addingTimeInterval(-0.5), $0.addingTimeInterval(0.5)] }.sorted()
    }

    @Test("status --json from the kept document is byte for byte a fresh rendering, on both sides of every change")
    func keptDocumentIsAFreshRendering() throws {
        var cached = Harness()
        let snapshots = try randomStore(in: cached, records: 12, seed: 14)
        // Random entries are dated up to a day ahead of each other: with a wide skew tolerance none is
        // skewed at any moment below, so the document stands at every one of them.
        let arguments = ["status", "--store", cached.home.file("store"), "--json", "--max-skew", "864000"]
        let path = try keepDocument(cached, arguments)
        let kept = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        var fresh = uncached()
        let moments = edges(of: snapshots)
        #expect(moments.count > 100)
        for now in moments {
            cached.now = now
            fresh.now = now
            let fromDocument = cached.run(arguments)
            let rendered = fresh.run(arguments)
            #expect(fromDocument.status == .success)
            #expect(fromDocument.output == rendered.output, "at \(now.timeIntervalSince1970)")
            #expect(fromDocument.errors == "")
        }
        _ = kept
    }

    @Test("a kept document stands until the first reset after it was rendered, and not past it")
    func keptDocumentStandsUntilTheNextReset() throws {
        var cached = Harness()
        let now = Records.date("2026-11-30T12:00:00Z")
        var entry = ProviderUsage(
            providerID: "codex", accountEmail: "you@example.com", lastUpdated: now.addingTimeInterval(-60),
            session: UsageWindow(usedPercent: 100, windowMinutes: 300, resetsAt: now.addingTimeInterval(3600)))
        entry.weekly = UsageWindow(usedPercent: 30, windowMinutes: 10080, resetsAt: now.addingTimeInterval(86_400))
        let record = try cached.home.write(
            "store/laptop.json",
            try RecordCodec.encode(
                DeviceSnapshot(
                    deviceID: Records.id("laptop"), deviceName: "laptop", generatedAt: now.addingTimeInterval(-60),
                    providers: [entry])))
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -600)], ofItemAtPath: record)
        let arguments = ["status", "--store", cached.home.file("store"), "--json", "--stale-after", "86400"]
        cached.now = now
        let path = try keepDocument(cached, arguments)
        let kept = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        cached.now = now.addingTimeInterval(3599)
        #expect(cached.run(arguments).output.contains("\"blocked\":true"))
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int == kept)
        // Past the session's reset its old figures are due: the document does not stand, and the fresh
        // rendering says so.
        cached.now = now.addingTimeInterval(3601)
        let after = cached.run(arguments).output
        #expect(after.contains("\"blocked\":false"))
        #expect(after.contains("\"due\":true"))
    }

    @Test("a kept document of more values than one gathering write takes comes out whole and in order")
    func keptDocumentWrittenInBatches() throws {
        var cached = Harness()
        let snapshots = try randomStore(in: cached, records: 400, seed: 15)
        let arguments = ["status", "--store", cached.home.file("store"), "--json", "--max-skew", "864000"]
        _ = try keepDocument(cached, arguments)
        var fresh = uncached()
        let moments = edges(of: snapshots)
        for now in [moments[moments.count / 3], moments[moments.count / 2]] {
            cached.now = now
            fresh.now = now
            let fromDocument = cached.run(arguments)
            let rendered = fresh.run(arguments)
            // Two pieces a value (the bytes before it, then it), its paces and staleness more than half a
            // write's worth of pieces (IOV_MAX, 1024 on Linux and macOS).
            let values = ["\"pace\":", "\"stale\":"].map { rendered.output.components(separatedBy: $0).count - 1 }
            #expect(values.reduce(0, +) > Descriptor.maximumPieces / 2)
            #expect(fromDocument.output == rendered.output, "at \(now.timeIntervalSince1970)")
        }
    }

    @Test("the kept document does not stand where an entry would be skewed; the merge then decides")
    func keptDocumentAndClockSkew() throws {
        var cached = Harness()
        let snapshots = try randomStore(in: cached, records: 8, seed: 9)
        let arguments = ["status", "--store", cached.home.file("store"), "--json"]
        let newest = try #require(snapshots.flatMap { $0.providers.map(\.lastUpdated) }.max())
        cached.now = newest.addingTimeInterval(3600)
        _ = try keepDocument(cached, arguments)
        var fresh = uncached()
        for offset in [3600, 300.5, 299.5, 0, -299.5, -300.5, -3600, 299.5, 3600] {
            cached.now = newest.addingTimeInterval(-offset)
            fresh.now = cached.now
            #expect(cached.run(arguments).output == fresh.run(arguments).output, "\(offset) s before the newest entry")
        }
    }

    @Test("the kept document is what a run over the same records with the same filters prints; anything else renders")
    func keptDocumentStandsForItsMergeOnly() throws {
        let harness = Harness()
        _ = try randomStore(in: harness, records: 6, seed: 3)
        let store = harness.home.file("store")
        let arguments = ["status", "--store", store, "--json", "--now", "2026-12-02T00:00:00Z"]
        let path = try keepDocument(harness, arguments)
        // A stand-in document proves which runs are answered from it.
        let readerVersion = "aggctl \(Aggctl.version)"
        let kept = try #require(StatusTemplate.load(from: path, readerVersion: readerVersion))
        try keep("{\"kept\":true}", for: kept.key, at: path)
        #expect(harness.run(arguments).output == "{\"kept\":true}\n")

        // Each of these runs renders, and keeps its own document: the stand-in goes back before each one,
        // so that each difference alone must refuse it.
        let fresh = uncached()
        for other in [
            arguments + ["--provider", "claude"], arguments + ["--account", "you@example.com"],
            arguments + ["--stale-after", "60"], arguments + ["--max-skew", "30"],
        ] {
            try keep("{\"kept\":true}", for: kept.key, at: path)
            #expect(harness.run(other).output == fresh.run(other).output, "\(other)")
        }
        // A rewritten record is another listing.
        try keep("{\"kept\":true}", for: kept.key, at: path)
        let name = try #require(harness.home.entries("store").first)
        let record = try Data(contentsOf: URL(fileURLWithPath: store + "/" + name))
        try harness.home.write("store/" + name, record + Data(" ".utf8))
        #expect(harness.run(arguments).output == fresh.run(arguments).output)
    }

    @Test("a damaged, foreign or tampered kept document is ignored")
    func damagedDocumentIsIgnored() throws {
        let (harness, arguments, path) = try keptStore(records: 6, seed: 5)
        let expected = uncached().run(arguments).output
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        for damage in [
            Array(bytes[0..<(bytes.count / 2)]), [],
            bytes.enumerated().map { $0.offset == bytes.count / 3 ? $0.element ^ 0x20 : $0.element },
        ] {
            try Data(damage).write(to: URL(fileURLWithPath: path))
            let outcome = harness.run(arguments)
            #expect(outcome.output == expected)
            #expect(outcome.errors == "")
        }
        #expect(StatusTemplate.load(from: path, readerVersion: "aggctl another") == nil)
        // Intact, but changed to hold what a terminal would act on: refused, and the merge renders.
        _ = harness.run(arguments)
        let kept = try #require(StatusTemplate.load(from: path, readerVersion: "aggctl \(Aggctl.version)"))
        try keep("{\"kept\":\"\u{1B}]0;owned\u{7}\"}", for: kept.key, at: path)
        #expect(harness.run(arguments).output == expected)
    }

    @Test("a kept document larger than the head it is judged by stands for its key alone")
    func largeDocumentJudgedByItsHead() throws {
        let store = try keptStore(records: 3, seed: 9)
        defer { withExtendedLifetime(store.harness) {} }
        let version = "aggctl \(Aggctl.version)"
        let key = try #require(StatusTemplate.load(from: store.path, readerVersion: version)).key
        let document = "[" + String(repeating: "{\"kept\":true},", count: 1000) + "{}]"
        try keep(document, for: key, at: store.path)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: store.path)[.size] as? Int)
        #expect(size > 2 * FileSystem.headSize)
        let kept = try #require(StatusTemplate.load(from: store.path, readerVersion: version, accepting: { $0 == key }))
        #expect(kept.key == key)
        var other = key
        other.provider = "codex"
        #expect(StatusTemplate.load(from: store.path, readerVersion: version, accepting: { $0 == other }) == nil)
        // The run itself answers from the kept document while its key stands.
        #expect(store.harness.run(store.arguments).output == document + "\n")
    }

    @Test("a kept document whose marks are out of order, past its end or of no known kind is refused")
    func marksAreChecked() throws {
        // The harness owns the folder the document is in: kept to the end.
        let store = try keptStore(records: 3, seed: 7)
        let path = store.path
        defer { withExtendedLifetime(store.harness) {} }
        let version = "aggctl \(Aggctl.version)"
        let key = try #require(StatusTemplate.load(from: path, readerVersion: version)).key
        let document = Array("{\"now\":\"x\",\"stale\":false}".utf8)
        let now = StatusJSONWriter.MomentMark(range: 7..<10, value: .now)
        let stale = StatusJSONWriter.MomentMark(range: 19..<24, value: .stale(since: Date()))
        for (marks, stands) in [([now, stale], true), ([stale, now], false), ([now, stale, stale], false)] {
            try document.withUnsafeBytes { try StatusTemplate.save($0, marks: marks, key: key, to: path) }
            #expect((StatusTemplate.load(from: path, readerVersion: version) != nil) == stands, "\(marks)")
        }
        let pastTheEnd = StatusJSONWriter.MomentMark(range: 19..<26, value: .now)
        try document.withUnsafeBytes { try StatusTemplate.save($0, marks: [pastTheEnd], key: key, to: path) }
        #expect(StatusTemplate.load(from: path, readerVersion: version) == nil)
        // Kinds and parts as the file holds them (bytes 16 and 17 of a record): only those written pass.
        for (kind, parts, known) in [
            (0, 0, true), (1, 0, true), (2, 3, true), (3, 0, false), (2, 4, false), (0, 1, false),
        ] {
            var record = [UInt8](repeating: 0, count: StatusTemplate.MarkRecords.size)
            record[8] = 1
            record[16] = UInt8(kind)
            record[17] = UInt8(parts)
            let valid = record.withUnsafeBytes { StatusTemplate.MarkRecords.areValid($0, count: 1, documentSize: 1) }
            #expect(valid == known, "kind \(kind), parts \(parts)")
        }
    }

    @Test("what status --json writes changes only together with the kept document's format")
    func formatFollowsTheDocument() throws {
        var entry = Records.entry(
            email: "you@example.com", at: "2026-11-30T11:50:00Z", weeklyUsed: 62.5, resetsAt: "2026-11-30T14:00:00Z",
            tokensToday: 5, tokens30Days: 50, costToday: 1.25, cost30Days: 9.5)
        entry.modelWeekly = [NamedWindow(name: "opus", window: UsageWindow(usedPercent: 80, windowMinutes: 10080))]
        let snapshots = [
            Records.snapshot("laptop", generatedAt: "2026-11-30T11:50:00Z", [entry]),
            Records.snapshot(
                "desktop", generatedAt: "2026-11-30T10:00:00Z",
                [Records.entry("codex", email: nil, at: "2026-11-30T09:00:00Z")]),
        ]
        let result = Merger.merge(
            StoreContents(records: snapshots.map { Records.stored($0) }),
            options: MergeOptions(now: Records.date("2026-11-30T12:00:00Z")))
        var json = StatusJSONWriter(marking: true)
        StatusReport.status(result, to: &json)
        var digest: UInt64 = 0
        json.withBytes { digest = BinaryWriter.checksum($0) }
        // A change to the document's form must bump StatusTemplate.format (documents kept by the same
        // aggctl version would be printed in the old form), then record the new digest here.
        #expect(
            "\(StatusTemplate.format) \(String(digest, radix: 16))" == "3 8da2ba2f1ea47ec3",
            "\(json.text)")
    }
}
