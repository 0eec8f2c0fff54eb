import Aggregator
import Foundation
import Portable
import Snapshots
import Stores
import TestSupport
import Testing

struct MergeMemoTests {
    let noon = MergeOptions(now: Records.date("2026-11-30T12:00:00Z"))

    func merged(_ entries: [ProviderUsage], options: MergeOptions) -> MergeResult {
        let records = entries.enumerated().map { index, entry in
            Records.stored(Records.snapshot("dev-\(index)", generatedAt: "2026-11-30T11:30:00Z", [entry]))
        }
        return Merger.merge(StoreContents(records: records), options: options)
    }

    @Test("the same listing later: the memo stands for the merge, with staleness judged anew")
    func reusedWithFreshStaleness() {
        let result = merged(
            [Records.entry(at: "2026-11-30T11:50:00Z"), Records.entry("codex", at: "2026-11-30T11:20:00Z")],
            options: noon)
        let memo = MergeMemo(store: "/s", readerVersion: "v", fingerprint: 42, options: noon, result: result)
        let later = MergeOptions(now: Records.date("2026-11-30T12:45:00Z"))
        let reused = memo.result(for: 42, options: later)
        #expect(
            reused
                == merged(
                    [Records.entry(at: "2026-11-30T11:50:00Z"), Records.entry("codex", at: "2026-11-30T11:20:00Z")],
                    options: later))
        #expect(reused?.accounts.map(\.stale) == [false, true])
        #expect(reused?.devices.map(\.stale) == [true, true])
        #expect(reused?.now == later.now)
    }

    @Test("another listing, or clock skew at either moment, means a full merge")
    func refusedWhenItCouldDiffer() {
        let result = merged([Records.entry(at: "2026-11-30T12:20:00Z")], options: noon)
        let memo = MergeMemo(store: "/s", readerVersion: "v", fingerprint: 42, options: noon, result: result)
        #expect(memo.result(for: 43, options: noon) == nil)
        // Skewed when merged (20 minutes ahead at noon): the winner may differ once it is not.
        #expect(memo.result(for: 42, options: MergeOptions(now: Records.date("2026-11-30T12:30:00Z"))) == nil)
        let plain = MergeMemo(
            store: "/s", readerVersion: "v", fingerprint: 42, options: noon,
            result: merged([Records.entry(at: "2026-11-30T11:50:00Z")], options: noon))
        // Not skewed when merged, but would be at an earlier moment.
        #expect(plain.result(for: 42, options: MergeOptions(now: Records.date("2026-11-30T11:40:00Z"))) == nil)
        #expect(plain.result(for: 42, options: MergeOptions(now: noon.now, maxSkew: 60)) != nil)
    }

    @Test("a memo survives its file intact; a damaged or foreign file is ignored")
    func fileRoundTrip() throws {
        let root = TemporaryDirectory("aggctl-memo")
        var entry = Records.entry(
            email: " Mixed@Case.test ", at: "2026-11-30T11:50:00Z", weeklyUsed: 12.5, resetsAt: "2026-11-30T14:00:00Z",
            tokensToday: 5, tokens30Days: 50, costToday: 1.25, error: "partial")
        entry.modelWeekly = [NamedWindow(name: "opus", window: UsageWindow(usedPercent: 80, windowMinutes: 10080))]
        let result = merged([entry, Records.entry(email: nil, at: "2026-11-30T11:00:00Z")], options: noon)
        let memo = MergeMemo(store: "/s", readerVersion: "v", fingerprint: 7, options: noon, result: result)
        let path = root.file("cache/s.merge")
        try memo.save(to: path)
        let loaded = MergeMemo.load(from: path, store: "/s", readerVersion: "v")
        #expect(loaded?.result == result)
        #expect(loaded?.fingerprint == 7)
        #expect(loaded?.options == noon)
        // Asked for the memo of a listing, it gives only one made from that listing.
        #expect(MergeMemo.load(from: path, store: "/s", readerVersion: "v", fingerprint: 7)?.result == result)
        #expect(MergeMemo.load(from: path, store: "/s", readerVersion: "v", fingerprint: 8) == nil)
        #expect(MergeMemo.load(from: path, store: "/other", readerVersion: "v", fingerprint: 7) == nil)
        #expect(MergeMemo.load(from: path, store: "/other", readerVersion: "v") == nil)
        #expect(MergeMemo.load(from: path, store: "/s", readerVersion: "w") == nil)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count / 3] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(MergeMemo.load(from: path, store: "/s", readerVersion: "v") == nil)
        #expect(MergeMemo.load(from: path, store: "/s", readerVersion: "v", fingerprint: 7) == nil)
    }

    @Test("a sealed memo naming a device by an id no record could have is ignored, not believed")
    func deviceIDsCheckedOnLoad() throws {
        let root = TemporaryDirectory("aggctl-memo-ids")
        var result = merged([Records.entry(email: "a@example.com", at: "2026-11-30T11:50:00Z")], options: noon)
        let path = root.file("cache/s.merge")
        try MergeMemo(store: "/s", readerVersion: "v", fingerprint: 7, options: noon, result: result).save(to: path)
        #expect(MergeMemo.load(from: path, store: "/s", readerVersion: "v")?.result == result)
        // The same memo, its checksum valid, as a hand that can write the state folder would seal it.
        for hostile in ["../../etc/passwd", "dev\u{1B}[2J", ".hidden", ""] {
            let id = DeviceID(alreadyValidated: hostile)
            result.devices[0].deviceID = id
            result.accounts[0].deviceID = id
            result.accounts[0].seenOn = [id]
            result.accounts[0].perDevice[0].deviceID = id
            try MergeMemo(store: "/s", readerVersion: "v", fingerprint: 7, options: noon, result: result).save(to: path)
            #expect(MergeMemo.load(from: path, store: "/s", readerVersion: "v") == nil, "\(hostile)")
        }
    }

    @Test("a memo larger than the head it is judged by: turned away by its listing, whole and checked otherwise")
    func largeFileJudgedByItsHead() throws {
        let root = TemporaryDirectory("aggctl-memo-large")
        let entries = (0..<60).map { Records.entry(email: "user\($0)@example.com", at: "2026-11-30T11:50:00Z") }
        let result = merged(entries, options: noon)
        let memo = MergeMemo(store: "/s", readerVersion: "v", fingerprint: 7, options: noon, result: result)
        let path = root.file("cache/s.merge")
        try memo.save(to: path)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.count > 2 * FileSystem.headSize)
        #expect(MergeMemo.load(from: path, store: "/s", readerVersion: "v", fingerprint: 7)?.result == result)
        #expect(MergeMemo.load(from: path, store: "/s", readerVersion: "v", fingerprint: 8) == nil)
        #expect(MergeMemo.load(from: path, store: "/other", readerVersion: "v", fingerprint: 7) == nil)
        // Damage past the head: the head still names the listing, and the checksum refuses the file.
        bytes[FileSystem.headSize + 100] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(MergeMemo.load(from: path, store: "/s", readerVersion: "v", fingerprint: 7) == nil)
    }

    @Test("a memo is kept only by a run that finds the store as the last run left it")
    func memoForAStoreSeenUnchanged() throws {
        let root = TemporaryDirectory("aggctl-memo-policy")
        func write(_ device: String, weeklyUsed: Double) throws {
            let snapshot = Records.snapshot(
                device, generatedAt: "2026-11-30T11:30:00Z",
                [Records.entry(email: "\(device)@x.test", at: "2026-11-30T11:30:00Z", weeklyUsed: weeklyUsed)])
            let path = try root.write("store/\(device).json", Records.json(snapshot))
            // Older than the caches' settle time, as a record is between publishes.
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: -600)], ofItemAtPath: path)
        }
        try write("dev-a", weeklyUsed: 10)
        try write("dev-b", weeklyUsed: 20)
        let merging = CachedMerge(
            store: DirectoryStore(path: root.file("store")), cacheFolder: root.file("cache"), readerVersion: "v")
        func run() throws -> (memoized: Bool, memos: Int) {
            let outcome = try merging.merge(options: noon, realNow: Date())
            outcome.finish()
            return (outcome.memoized != nil, root.entries("cache").filter { $0.hasSuffix(".merge") }.count)
        }
        // First run: the parse cache only. Second: the store is as the first left it, so the memo. Third: it.
        #expect(try run() == (false, 0))
        #expect(try run() == (false, 1))
        #expect(try run() == (true, 1))
        // A store that changes before every run is merged afresh each time and never leaves a new memo.
        for used in [30.0, 40, 50] {
            try write("dev-b", weeklyUsed: used)
            let before = try Data(
                contentsOf: URL(
                    fileURLWithPath: root.file("cache/" + root.entries("cache").first { $0.hasSuffix(".merge") }!)))
            #expect(try run().memoized == false)
            let after = try Data(
                contentsOf: URL(
                    fileURLWithPath: root.file("cache/" + root.entries("cache").first { $0.hasSuffix(".merge") }!)))
            #expect(before == after, "no memo written for a store that changed")
        }
        #expect(try run() == (false, 1))
        #expect(try run() == (true, 1))
    }

    @Test("a merge of a settled folder keeps its names beside the other caches; a record added is merged at once")
    func folderNamesKept() throws {
        let root = TemporaryDirectory("aggctl-memo-names")
        func write(_ device: String) throws {
            let snapshot = Records.snapshot(
                device, generatedAt: "2026-11-30T11:30:00Z",
                [Records.entry(email: "\(device)@x.test", at: "2026-11-30T11:30:00Z")])
            try root.write("store/\(device).json", Records.json(snapshot))
        }
        try write("dev-a")
        try write("dev-b")
        let merging = CachedMerge(
            store: DirectoryStore(path: root.file("store")), cacheFolder: root.file("cache"), readerVersion: "v")
        // The real time as the merge judges it: moved on below instead of waiting.
        var realNow = Date()
        func run() throws -> [String] {
            let outcome = try merging.merge(options: noon, realNow: realNow)
            outcome.finish()
            return outcome.result.devices.map(\.deviceID.rawValue)
        }
        // A folder changed moments ago: listed in full, nothing kept.
        #expect(try run() == ["dev-a", "dev-b"])
        #expect(!root.entries("cache").contains { $0.hasSuffix(".names") })
        // Settled (the folder's change is past the settle time): the names are kept, written beside the
        // merge and finished with it.
        realNow = realNow.addingTimeInterval(ParseCache.settleTime + 0.1)
        #expect(try run() == ["dev-a", "dev-b"])
        #expect(root.entries("cache").filter { $0.hasSuffix(".names") }.count == 1)
        #expect(!root.entries("cache").contains { $0.hasSuffix(".tmp") })
        try write("dev-c")
        #expect(try run() == ["dev-a", "dev-b", "dev-c"])
    }
}
