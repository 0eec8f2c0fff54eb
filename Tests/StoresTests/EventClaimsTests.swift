import Dispatch
import Foundation
import Stores
import TestSupport
import Testing

/// A folder store's event claims: created once whoever races for them, kept inside `alerts/`.
struct EventClaimsTests {
    let root = TemporaryDirectory("aggctl-claims")

    @Test("of 16 threads creating one claim at once, exactly one does; the claim reads back")
    func exclusive() throws {
        try FileManager.default.createDirectory(atPath: root.file("store"), withIntermediateDirectories: true)
        let claims = try #require(DirectoryStore(path: root.file("store")).claims)
        #expect(claims.isExclusive)
        let name = try #require(ClaimName("evt-0123456789abcdef"))
        let won = Counter()
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            if (try? claims.create(name, data: Data("claimant \(index)".utf8))) == true { won.add() }
        }
        #expect(won.value == 1)
        #expect(try claims.read(name)?.data.starts(with: Data("claimant".utf8)) == true)
        #expect(try claims.names() == [name])
    }

    @Test("claim names hold no path: dots first, slashes and other bytes are refused")
    func names() {
        for bad in ["", ".hidden", "../x", "a/b", "evt x", "évt", String(repeating: "a", count: 129)] {
            #expect(ClaimName(bad) == nil, "\(bad)")
        }
        #expect(ClaimName("evt-0123.delivered") != nil)
    }

    @Test("a store inside a Syncthing folder has claims that are not exclusive")
    func synced() throws {
        try root.write("sync/.stfolder/.keep", "")
        try FileManager.default.createDirectory(atPath: root.file("sync/team/store"), withIntermediateDirectories: true)
        #expect(DirectoryStore(path: root.file("sync/team/store")).claims?.isExclusive == false)
    }
}

/// Sync tools' conflict copies are not records (Syncthing, Dropbox, Nextcloud names).
struct ConflictCopyNameTests {
    @Test("conflict copies are not record names; records and odd but valid names are")
    func names() {
        for name in [
            "box.sync-conflict-20261130-120000-ABCDEFG.json", "box (conflicted copy 2026-11-30).json",
            "box (Alice's conflicted copy 2026-11-30).json",
        ] {
            #expect(!RecordInfo.isRecordName(name), "\(name)")
        }
        for name in ["box.json", "sync-box.json", "conflict.json"] { #expect(RecordInfo.isRecordName(name), "\(name)") }
    }
}

private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() {
        lock.lock()
        count += 1
        lock.unlock()
    }
    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
