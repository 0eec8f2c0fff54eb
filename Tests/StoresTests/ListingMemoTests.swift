import Foundation
import Portable
import Snapshots
import Stores
import TestSupport
import Testing

/// A folder store listed through its listing memo, as `status` lists it.
struct ListingMemoTests {
    let root = TemporaryDirectory("aggctl-names")
    var storePath: String { root.file("store") }
    var memoPath: String { root.file("cache/store.names") }
    var store: DirectoryStore { DirectoryStore(path: storePath) }
    /// Well after every change the test makes: the folder counts as settled.
    let later = Date().addingTimeInterval(60)

    func plant(_ names: [String]) throws {
        for name in names { try root.write("store/" + name, Data("{}".utf8)) }
    }

    /// The names listed, the memo kept as a merge keeps it.
    func list(at now: Date? = nil) throws -> [String] {
        let (records, memo) = try ListingMemo.listing(
            of: store, memo: memoPath, readerVersion: "test", now: now ?? later)
        try memo?.save(to: memoPath, readerVersion: "test")
        return records.map(\.name)
    }

    /// Changes the folder a clock tick after the last listing: even a coarse file-system clock gives it
    /// new times (which a real store gets from the settle rule).
    func change(_ body: () throws -> Void) rethrows {
        usleep(20_000)
        try body()
    }

    @Test("while the folder stands, the names come from the memo and only the records are examined")
    func namesComeFromTheMemo() throws {
        try plant(["a.json", "b.json"])
        #expect(try list() == ["a.json", "b.json"])
        let memo = try #require(ListingMemo.load(from: memoPath, store: storePath, readerVersion: "test"))
        #expect(memo.names == ["a.json", "b.json"])
        // A name only the memo holds shows up, unexamined: the folder was not read again.
        var planted = memo
        planted.names = ["a.json", "b.json", "c.json"]
        try planted.save(to: memoPath, readerVersion: "test")
        let (listing, memoToKeep) = try ListingMemo.listing(
            of: store, memo: memoPath, readerVersion: "test", now: later)
        #expect(memoToKeep == nil)
        #expect(listing.map(\.name) == ["a.json", "b.json", "c.json"])
        #expect(listing[2].version == nil)
        #expect(listing[0].version != nil)
    }

    @Test("asked for the memo of a stamp, only one kept under it is given, however large")
    func memoOfAStamp() throws {
        let names = (0..<1000).map { String(format: "dev-%05d.json", $0) }
        let stamp = RecordVersion.file(size: 1, modified: 2, changed: 3, inode: 4)
        let memo = ListingMemo(store: storePath, stamp: stamp, names: names)
        try FileManager.default.createDirectory(
            atPath: FileSystem.parent(of: memoPath), withIntermediateDirectories: true)
        try memo.save(to: memoPath, readerVersion: "test")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: memoPath)[.size] as? Int)
        #expect(size > 2 * FileSystem.headSize)
        #expect(ListingMemo.load(from: memoPath, store: storePath, readerVersion: "test", stamp: stamp) == memo)
        #expect(ListingMemo.load(from: memoPath, store: storePath, readerVersion: "test") == memo)
        let another = RecordVersion.file(size: 1, modified: 5, changed: 6, inode: 4)
        #expect(ListingMemo.load(from: memoPath, store: storePath, readerVersion: "test", stamp: another) == nil)
        #expect(ListingMemo.load(from: memoPath, store: root.file("other"), readerVersion: "test", stamp: stamp) == nil)
    }

    @Test("records added, removed and renamed are listed at once")
    func changesAreSeen() throws {
        try plant(["a.json", "b.json"])
        #expect(try list() == ["a.json", "b.json"])
        try change { try plant(["c.json"]) }
        #expect(try list() == ["a.json", "b.json", "c.json"])
        try change { try FileManager.default.removeItem(atPath: root.file("store/a.json")) }
        #expect(try list() == ["b.json", "c.json"])
        try change {
            try FileManager.default.moveItem(atPath: root.file("store/b.json"), toPath: root.file("store/d.json"))
        }
        #expect(try list() == ["c.json", "d.json"])
        // A folder put in the store's place, with the same names inside.
        try change {
            try FileManager.default.moveItem(atPath: storePath, toPath: root.file("old"))
            try plant(["c.json"])
        }
        #expect(try list() == ["c.json"])
    }

    @Test("a folder changed moments ago is listed in full and no memo is kept for it")
    func freshFoldersAreNotMemoized() throws {
        try plant(["a.json"])
        #expect(try list(at: Date()) == ["a.json"])
        #expect(!FileManager.default.fileExists(atPath: memoPath))
    }

    @Test(
        "a damaged, foreign or escaping memo is not used",
        arguments: ["damaged", "another store", "another version", "escaping name", "unsorted", "NUL in a name"])
    func untrustedMemos(kind: String) throws {
        try plant(["a.json", "b.json"])
        #expect(try list() == ["a.json", "b.json"])
        // Every bad memo names a record the folder lacks: had it been used, the listing would show it.
        var bad = try #require(ListingMemo.load(from: memoPath, store: storePath, readerVersion: "test"))
        bad.names = ["a.json", "b.json", "ghost.json"]
        var version = "test"
        switch kind {
        case "damaged": break
        case "another store": bad.store = root.file("other")
        case "another version": version = "other"
        case "escaping name": bad.names = ["../secret.json", "a.json", "b.json"]
        case "unsorted": bad.names = ["b.json", "a.json", "z.json"]
        default: bad.names = ["a.json", "b.json", "c\u{0}.json"]
        }
        try bad.save(to: memoPath, readerVersion: version)
        if kind == "damaged" {
            var bytes = try Data(contentsOf: URL(fileURLWithPath: memoPath))
            bytes[bytes.count / 2] ^= 0x40
            try bytes.write(to: URL(fileURLWithPath: memoPath))
        }
        #expect(try list() == ["a.json", "b.json"])
    }

    @Test("a store that cannot stamp its names is listed in full every time")
    func storesWithoutStampsListInFull() throws {
        try plant(["a.json"])
        let counting = CountingStore(path: storePath)
        #expect(counting.namesStamp() == nil)
        let (listing, memoToKeep) = try ListingMemo.listing(
            of: counting, memo: memoPath, readerVersion: "test", now: later)
        #expect(listing.map(\.name) == ["a.json"])
        #expect(memoToKeep == nil)
    }
}
