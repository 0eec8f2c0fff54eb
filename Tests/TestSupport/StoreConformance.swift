import Dispatch
import Foundation
import Snapshots
import Stores
import Testing

/// A store under test, with the back doors the checks need to set up situations a store's own API
/// cannot create (a foreign file, a huge file). Every store implementation provides one; the suite lives
/// here so that every test target can run it on the stores it starts.
public protocol StoreHarness: Sendable {
    /// A store at a location that does not exist yet, whose parent does.
    func makeStore() throws -> any RecordStore
    /// Puts raw bytes at `name` in the store, bypassing the store's API (creating the store if needed).
    func plant(_ name: String, _ data: Data) throws
    /// Every name in the store, hidden ones included.
    func allNames() throws -> [String]
    /// Whether the store can list hidden files (nginx's WebDAV listings leave them out, so nothing there
    /// can find a leftover temporary file to sweep).
    var listsHiddenFiles: Bool { get }
}

extension StoreHarness {
    public var listsHiddenFiles: Bool { true }
}

/// One behaviour every `RecordStore` must have, named so that a failure reads as the broken promise.
public struct ConformanceCheck: Sendable, CustomTestStringConvertible {
    public var name: String
    public var run: @Sendable (any StoreHarness) throws -> Void

    public var testDescription: String { name }
}

/// The suite every store runs: `@Test(arguments: StoreConformance.checks)` in each store's tests.
public enum StoreConformance {
    public static let laptop = Records.id("laptop-1")
    public static let desktop = Records.id("desktop-2")

    public static func record(_ id: DeviceID, used: Double = 40) -> Data {
        Records.json(
            Records.snapshot(
                id.rawValue, generatedAt: "2026-11-30T12:00:00Z",
                [Records.entry(at: "2026-11-30T11:59:00Z", sessionUsed: used)]))
    }

    public static let checks: [ConformanceCheck] = [
        ConformanceCheck(name: "a written record reads back byte for byte") { harness in
            let store = try harness.makeStore()
            try store.writeRecord(record(laptop), for: laptop)
            #expect(try store.readRecord(named: laptop.recordName) == record(laptop))
        },
        ConformanceCheck(name: "writing again replaces the record") { harness in
            let store = try harness.makeStore()
            try store.writeRecord(record(laptop, used: 10), for: laptop)
            try store.writeRecord(record(laptop, used: 90), for: laptop)
            #expect(try store.readRecord(named: laptop.recordName) == record(laptop, used: 90))
            #expect(try store.listRecords().map(\.name) == [laptop.recordName])
        },
        ConformanceCheck(name: "listing names every record with its size and version") { harness in
            let store = try harness.makeStore()
            try store.writeRecord(record(laptop), for: laptop)
            try store.writeRecord(record(desktop), for: desktop)
            let listing = try store.listRecords().sorted { $0.name < $1.name }
            #expect(listing.map(\.name) == [desktop.recordName, laptop.recordName])
            #expect(listing.last?.size == Int64(record(laptop).count))
            #expect(listing.allSatisfy { $0.version != nil })
        },
        ConformanceCheck(name: "a listing of names alone lists the same records, and reading tells what it left out") {
            harness in
            let store = try harness.makeStore()
            try store.writeRecord(record(laptop), for: laptop)
            try store.writeRecord(record(desktop), for: desktop)
            try harness.plant(".laptop-1.json.1.aa.tmp", record(laptop))
            let listing = try store.listRecords().sortedByName()
            let names = try store.listRecordNames().sortedByName()
            #expect(names.map(\.name) == listing.map(\.name))
            var buffer = RecordBuffer()
            defer { buffer.deallocate() }
            for (named, listed) in zip(names, listing) {
                let count = try store.readRecord(
                    named: named.name, maximumSize: RecordCodec.maximumRecordSize, into: &buffer)
                #expect(count == Int(listed.size ?? -1))
                // The version the full listing gives: from the names listing, or else from the read.
                #expect((named.version ?? buffer.examined?.version) == listed.version, "\(named.name)")
            }
        },
        ConformanceCheck(name: "a rewrite of the same size at once is never served stale from the parse cache") {
            harness in
            // A version may not change within a second (nginx lists only dates and lengths); then the
            // record is too young for the cache to trust, and is read again.
            let store = try harness.makeStore()
            var cache: ParseCache? = ParseCache(store: store.displayName, readerVersion: "test")
            func used() throws -> Double? {
                let contents = try store.readContents(cache: &cache, now: Date())
                return contents.records.first?.snapshot.providers[0].session?.usedPercent
            }
            try store.writeRecord(record(laptop, used: 40), for: laptop)
            #expect(try used() == 40)
            try store.writeRecord(record(laptop, used: 41), for: laptop)
            #expect(try used() == 41)
            try store.writeRecord(record(laptop, used: 42), for: laptop)
            #expect(try used() == 42)
        },
        ConformanceCheck(name: "a missing store is reported as missing, and the first write creates it") { harness in
            let store = try harness.makeStore()
            if store.traits.firstWriteCreatesStore {
                #expect(throws: StoreError.storeMissing(store: store.displayName)) { try store.listRecords() }
            } else {
                #expect(try store.listRecords().isEmpty, "a store with nothing written yet is empty")
            }
            try store.writeRecord(record(laptop), for: laptop)
            #expect(try store.listRecords().map(\.name) == [laptop.recordName])
        },
        ConformanceCheck(name: "a write leaves nothing in the store but the device's record") { harness in
            let store = try harness.makeStore()
            try store.writeRecord(record(laptop), for: laptop)
            try store.writeRecord(record(laptop), for: laptop)
            let names = try harness.allNames()
            #expect(names == [laptop.recordName], "\(names)")
        },
        ConformanceCheck(name: "hidden files, names not ending in .json and sync conflict copies are not records") {
            harness in
            let store = try harness.makeStore()
            try harness.plant(".laptop-1.json.123.tmp", record(laptop))
            try harness.plant(".hidden.json", record(laptop))
            try harness.plant("notes.txt", Data("hello".utf8))
            try harness.plant("laptop-1.json.bak", record(laptop))
            // A sync tool's conflict copies: the losing side of two writes, not records.
            try harness.plant("desktop-2.sync-conflict-20261130-120000-ABCDEFG.json", record(desktop))
            try store.writeRecord(record(desktop), for: desktop)
            #expect(try store.listRecords().map(\.name) == [desktop.recordName])
            #expect(try store.readContents().problems.isEmpty, "nothing to warn about on every run")
        },
        ConformanceCheck(name: "a record over the size limit is refused without being read") { harness in
            let store = try harness.makeStore()
            let limit = RecordCodec.maximumRecordSize
            try harness.plant("huge.json", Data(count: limit + 1))
            #expect(throws: StoreError.recordTooLarge(name: "huge.json", size: Int64(limit + 1), limit: limit)) {
                try store.readRecord(named: "huge.json")
            }
            try harness.plant("exact.json", Data(count: 1024))
            #expect(throws: StoreError.recordTooLarge(name: "exact.json", size: 1024, limit: 1000)) {
                try store.readRecord(named: "exact.json", maximumSize: 1000)
            }
        },
        ConformanceCheck(name: "reading a record that is not there says it is missing") { harness in
            let store = try harness.makeStore()
            try store.writeRecord(record(laptop), for: laptop)
            #expect(throws: StoreError.recordMissing(name: desktop.recordName)) {
                try store.readRecord(named: desktop.recordName)
            }
        },
        ConformanceCheck(name: "a crash between the temporary write and the rename leaves the old record whole") {
            harness in
            guard let store = try stagingStore(harness) else { return }
            try store.writeRecord(record(laptop, used: 10), for: laptop)
            // The process dies after staging: commit never runs, and nobody discards the stage.
            _ = try store.stageRecord(record(laptop, used: 99), for: laptop)
            #expect(try store.readRecord(named: laptop.recordName) == record(laptop, used: 10))
            #expect(try store.listRecords().map(\.name) == [laptop.recordName])
            let contents = try store.readContents()
            #expect(contents.records.map(\.snapshot.providers[0].session?.usedPercent) == [10])
            #expect(contents.problems.isEmpty)
        },
        ConformanceCheck(name: "a discarded stage leaves no trace") { harness in
            guard let store = try stagingStore(harness) else { return }
            try store.writeRecord(record(laptop), for: laptop)
            let staged = try store.stageRecord(record(laptop, used: 99), for: laptop)
            store.discardRecord(staged)
            #expect(try harness.allNames() == [laptop.recordName])
        },
        ConformanceCheck(name: "this device's old temporary files are swept; young ones and other devices' stay") {
            harness in
            guard let store = try stagingStore(harness) else { return }
            try store.writeRecord(record(laptop), for: laptop)
            try harness.plant(".laptop-1.json.1.aa.tmp", Data("x".utf8))
            try harness.plant(".desktop-2.json.1.bb.tmp", Data("x".utf8))
            store.removeLeftoverTemporaryFiles(of: laptop, olderThan: 3600, now: Date())
            #expect(try harness.allNames().count == 3, "an hour has not passed")
            store.removeLeftoverTemporaryFiles(of: laptop, olderThan: 3600, now: Date().addingTimeInterval(7200))
            let left = harness.listsHiddenFiles ? [] : [".laptop-1.json.1.aa.tmp"]
            let names = try harness.allNames()
            #expect(names == ([".desktop-2.json.1.bb.tmp", laptop.recordName] + left).sorted(), "\(names)")
        },
        ConformanceCheck(name: "removing a record deletes it, and removing a missing one is fine") { harness in
            let store = try harness.makeStore()
            try store.writeRecord(record(laptop), for: laptop)
            try store.writeRecord(record(desktop), for: desktop)
            try store.removeRecord(for: laptop)
            try store.removeRecord(for: laptop)
            #expect(try store.listRecords().map(\.name) == [desktop.recordName])
        },
        ConformanceCheck(name: "a claim is made once, by one of eight at once, reads back, and is no record") {
            harness in
            let store = try harness.makeStore()
            try store.writeRecord(record(laptop), for: laptop)
            let claims = try #require(store.claims, "every store keeps claims")
            // Twelve races, not one: Apache's MOVE let two of eight win about one race in five.
            var winners: [Int] = []
            for race in 1...12 {
                let contested = try #require(ClaimName("evt-race-\(race)"))
                let won = Locked(0)
                DispatchQueue.concurrentPerform(iterations: 8) { index in
                    if (try? claims.create(contested, data: Data("claimant \(index)".utf8))) == true {
                        won.update { $0 += 1 }
                    }
                }
                winners.append(won.value)
            }
            #expect(winners == Array(repeating: 1, count: 12), "exactly one claimant in each race")
            claims.removeClaims(olderThan: Date().addingTimeInterval(3600))
            let name = try #require(ClaimName("evt-00000000000000c1"))
            #expect(try claims.create(name, data: Data("claimant 0".utf8)))
            #expect(try claims.create(name, data: Data("late".utf8)) == false)
            #expect(try claims.read(name)?.data.starts(with: Data("claimant".utf8)) == true)
            #expect(try claims.read(#require(ClaimName("evt-none"))) == nil)
            let marker = try #require(ClaimName("sender-laptop"))
            try claims.replace(marker, data: Data("one".utf8))
            try claims.replace(marker, data: Data("two".utf8))
            #expect(try claims.read(marker)?.data == Data("two".utf8))
            #expect(Set(try claims.names()) == [name, marker])
            #expect(try store.listRecords().map(\.name) == [laptop.recordName], "claims are not records")
            claims.removeClaims(olderThan: Date().addingTimeInterval(3600))
            #expect(try claims.names().isEmpty)
        },
        ConformanceCheck(
            name: "a nested store's files are written, listed and read in their folder, apart from records"
        ) {
            harness in
            let store = try harness.makeStore()
            try store.writeRecord(record(laptop), for: laptop)
            let ledger = try #require(store.nested(DeviceID(alreadyValidated: "ledger")), "every store nests")
            let mine = try #require(ledger.nested(laptop))
            let month = DeviceID(alreadyValidated: "2026-12")
            try mine.writeRecord(Data("first".utf8), for: month)
            try mine.writeRecord(Data("second".utf8), for: month)
            try #require(ledger.nested(desktop)).writeRecord(Data("theirs".utf8), for: month)
            #expect(try mine.listRecords().map(\.name) == ["2026-12.json"])
            #expect(try mine.readRecord(named: "2026-12.json") == Data("second".utf8))
            #expect(try store.listRecords().map(\.name) == [laptop.recordName], "a nested file is no record")
            #expect(try ledger.listRecords().isEmpty)
            let missing = try #require(ledger.nested(DeviceID(alreadyValidated: "nobody")))
            #expect(throws: StoreError.self) { _ = try missing.readRecord(named: "2026-12.json") }
        },
        ConformanceCheck(name: "reading the whole store reports a broken record and merges the rest") { harness in
            let store = try harness.makeStore()
            try store.writeRecord(record(laptop), for: laptop)
            try harness.plant("broken.json", Data("{\"deviceID\": ".utf8))
            let contents = try store.readContents()
            #expect(contents.records.map(\.snapshot.deviceID) == [laptop])
            #expect(contents.problems == [RecordProblem(file: "broken.json", reason: "not valid JSON (at byte 13)")])
        },
    ]

    /// The harness's store as a `StagingStore`, or nil (after checking that it says it writes in place)
    /// for a store that stages nothing, where the staging checks have nothing to test.
    static func stagingStore(_ harness: any StoreHarness) throws -> (any StagingStore)? {
        let store = try harness.makeStore()
        guard let staging = store as? any StagingStore else {
            #expect(store.traits.writesAtomicallyInPlace, "a store that stages nothing must write atomically in place")
            return nil
        }
        #expect(!staging.traits.writesAtomicallyInPlace, "a staging store does not write in place")
        return staging
    }
}

/// A value several threads change, one at a time.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
    func update(_ change: (inout Value) -> Void) {
        lock.lock()
        change(&stored)
        lock.unlock()
    }
}
