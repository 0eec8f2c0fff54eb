import Foundation
import Snapshots
import Stores
import TestSupport
import Testing

/// A real directory store that counts the records it reads, so a test can see what the cache spared.
final class CountingStore: StagingStore, @unchecked Sendable {
    let inner: DirectoryStore
    private let lock = NSLock()
    private var names: [String] = []

    init(path: String) {
        inner = DirectoryStore(path: path)
    }

    var readNames: [String] {
        lock.lock()
        defer { lock.unlock() }
        return names.sorted()
    }

    func resetReads() {
        lock.lock()
        names = []
        lock.unlock()
    }

    var displayName: String { inner.displayName }
    func listRecords() throws -> [RecordInfo] { try inner.listRecords() }
    func listRecordNames() throws -> [RecordInfo] { try inner.listRecordNames() }
    func readRecord(named name: String, maximumSize: Int) throws -> Data {
        counted(name)
        return try inner.readRecord(named: name, maximumSize: maximumSize)
    }
    func readRecord(named name: String, maximumSize: Int, into buffer: inout RecordBuffer) throws -> Int {
        counted(name)
        return try inner.readRecord(named: name, maximumSize: maximumSize, into: &buffer)
    }
    private func counted(_ name: String) {
        lock.lock()
        names.append(name)
        lock.unlock()
    }
    func stageRecord(_ data: Data, for deviceID: DeviceID) throws -> StagedRecord {
        try inner.stageRecord(data, for: deviceID)
    }
    func commitRecord(_ staged: StagedRecord) throws { try inner.commitRecord(staged) }
    func discardRecord(_ staged: StagedRecord) { inner.discardRecord(staged) }
    func removeRecord(for deviceID: DeviceID) throws { try inner.removeRecord(for: deviceID) }
    var traits: StoreTraits { inner.traits }
    func removeLeftoverTemporaryFiles(of deviceID: DeviceID, olderThan age: TimeInterval, now: Date) {
        inner.removeLeftoverTemporaryFiles(of: deviceID, olderThan: age, now: now)
    }
}

struct ParseCacheTests {
    let root = TemporaryDirectory("aggctl-cache")
    var storePath: String { root.file("store") }
    var cachePath: String { root.file("cache/store.cache") }
    /// Well after every file in the test was written: nothing is too fresh to cache.
    let later = Date().addingTimeInterval(60)

    func record(_ id: String, used: Double) -> Data {
        Records.json(
            Records.snapshot(
                id, generatedAt: "2026-11-30T12:00:00Z", [Records.entry(at: "2026-11-30T11:59:00Z", sessionUsed: used)])
        )
    }

    func read(_ store: CountingStore, now: Date? = nil) throws -> StoreContents {
        var cache: ParseCache? = ParseCache.load(from: cachePath, store: store.displayName, readerVersion: "test")
        let contents = try store.readContents(cache: &cache, now: now ?? later)
        if let cache, cache.hasChanged { try cache.save(to: cachePath) }
        return contents
    }

    @Test("an unchanged record is not read again, and gives the same result from the cache")
    func unchangedRecordsComeFromCache() throws {
        try root.write("store/a.json", record("a", used: 10))
        try root.write("store/b.json", record("b", used: 20))
        try root.write("store/broken.json", "{")
        let store = CountingStore(path: storePath)
        let first = try read(store)
        #expect(store.readNames == ["a.json", "b.json", "broken.json"])
        store.resetReads()
        let second = try read(store)
        #expect(store.readNames.isEmpty)
        #expect(second == first)
        #expect(second.problems.map(\.file) == ["broken.json"])
    }

    @Test("a first read from a listing of names caches each record as it was read, also one replaced meanwhile")
    func firstReadFromNamesAlone() throws {
        try root.write("store/a.json", record("a", used: 10))
        try root.write("store/b.json", record("b", used: 20))
        let store = CountingStore(path: storePath)
        let names = try store.listRecordNames()
        #expect(names.map(\.name) == ["a.json", "b.json"])
        #expect(names.allSatisfy { $0.version == nil }, "a folder's listing of names examines nothing")
        // Replaced after the listing, before the read: what is cached is what was read, under its version.
        try root.write("store/b.json", record("b", used: 21.5))
        var cache: ParseCache? = ParseCache(store: store.displayName, readerVersion: "test")
        let first = try store.readContents(listing: names, cache: &cache, now: later)
        #expect(first.records.map { $0.snapshot.providers[0].session?.usedPercent } == [10, 21.5])
        #expect(cache?.count == 2)
        store.resetReads()
        let second = try store.readContents(listing: try store.listRecords(), cache: &cache, now: later)
        #expect(store.readNames.isEmpty, "every record found in the cache under the version a listing gives")
        #expect(second == first)
    }

    @Test("a rewritten, added or removed record is noticed")
    func changesAreNoticed() throws {
        try root.write("store/a.json", record("a", used: 10))
        try root.write("store/b.json", record("b", used: 20))
        let store = CountingStore(path: storePath)
        _ = try read(store)
        store.resetReads()
        // Same size, rewritten in place: the times and the change time move.
        try root.write("store/a.json", record("a", used: 11))
        try root.write("store/c.json", record("c", used: 30))
        try FileManager.default.removeItem(atPath: root.file("store/b.json"))
        let contents = try read(store)
        #expect(store.readNames == ["a.json", "c.json"])
        #expect(contents.records.map(\.snapshot.deviceID.rawValue) == ["a", "c"])
        #expect(contents.records.first?.snapshot.providers.first?.session?.usedPercent == 11)
        store.resetReads()
        _ = try read(store)
        #expect(store.readNames.isEmpty)
    }

    @Test("after one record of many changed, the cache saved holds every record as they are now")
    func partialSaveKeepsEveryRecord() throws {
        // Enough records for every chunk of the file to hold several: most are written back as they were
        // loaded, the changed ones encoded again.
        for index in 0..<60 { try root.write("store/r\(index).json", record("r\(index)", used: Double(index))) }
        let store = CountingStore(path: storePath)
        _ = try read(store)
        try root.write("store/r7.json", record("r7", used: 70))
        try FileManager.default.removeItem(atPath: root.file("store/r8.json"))
        try root.write("store/new.json", record("new", used: 1))
        store.resetReads()
        _ = try read(store)
        #expect(store.readNames == ["new.json", "r7.json"])
        store.resetReads()
        let fromCache = try read(store)
        #expect(store.readNames.isEmpty)
        #expect(fromCache == (try DirectoryStore(path: storePath).readContents()))
        #expect(ParseCache.load(from: cachePath, store: storePath, readerVersion: "test").count == 60)
    }

    @Test("a record changed moments ago is read again next time, never trusted from the cache")
    func freshRecordsAreNotCached() throws {
        try root.write("store/a.json", record("a", used: 10))
        let store = CountingStore(path: storePath)
        _ = try read(store, now: Date())
        store.resetReads()
        _ = try read(store, now: later)
        #expect(store.readNames == ["a.json"])
    }

    @Test(
        "a corrupt, truncated or foreign cache is ignored, never trusted",
        arguments: ["garbage", "truncated", "bit flip", "other store", "other version"])
    func untrustedCaches(damage: String) throws {
        try root.write("store/a.json", record("a", used: 10))
        let store = CountingStore(path: storePath)
        let expected = try read(store)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: cachePath)))
        switch damage {
        case "garbage": bytes = Array("not a cache at all".utf8)
        case "truncated": bytes.removeLast(bytes.count / 2)
        case "bit flip": bytes[bytes.count / 2] ^= 0x10
        case "other store":
            var cache: ParseCache? = ParseCache(store: "/elsewhere", readerVersion: "test")
            _ = try DirectoryStore(path: storePath).readContents(cache: &cache, now: later)
            try cache!.save(to: cachePath)
            bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: cachePath)))
        default:
            var cache: ParseCache? = ParseCache(store: storePath, readerVersion: "aggctl 0.0.1")
            _ = try DirectoryStore(path: storePath).readContents(cache: &cache, now: later)
            try cache!.save(to: cachePath)
            bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: cachePath)))
        }
        try Data(bytes).write(to: URL(fileURLWithPath: cachePath))
        #expect(ParseCache.load(from: cachePath, store: storePath, readerVersion: "test").count == 0)
        store.resetReads()
        #expect(try read(store) == expected)
        #expect(store.readNames == ["a.json"])
    }

    @Test("saving leaves only the cache file, readable back with every entry")
    func saveIsClean() throws {
        try root.write("store/a.json", record("a", used: 10))
        try root.write("store/b.json", "[]")
        let store = CountingStore(path: storePath)
        _ = try read(store)
        #expect(root.entries("cache") == ["store.cache"])
        #expect(ParseCache.load(from: cachePath, store: storePath, readerVersion: "test").count == 2)
    }

    @Test("each store has its own kept files, one name per kind, no store's name in any")
    func pathsPerStore() {
        let a = KeptFile.parseCache.path(in: "/state", store: "/mnt/a")
        #expect(a == KeptFile.parseCache.path(in: "/state", store: "/mnt/a"))
        #expect(a != KeptFile.parseCache.path(in: "/state", store: "/mnt/b"))
        #expect(a.hasPrefix("/state/store-") && a.hasSuffix(".cache"))
        let kinds = KeptFile.allCases.map { $0.path(in: "/state", store: "https://me@dav.example/s/") }
        #expect(Set(kinds).count == KeptFile.allCases.count)
        #expect(kinds.allSatisfy { !$0.contains("me@") && !$0.contains("dav.example") })
    }
}
