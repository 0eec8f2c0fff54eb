import Aggregator
import Foundation
import Portable
import Snapshots
import Stores
import TestSupport
import Testing

@testable import AggctlCLI

/// The merge memo above the read layer: kept only when the store is as the last read left it.
struct StoreMergeTests {
    let noon = MergeOptions(now: Records.date("2026-11-30T12:00:00Z"))

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
        let merging = StoreMerge(
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
        let merging = StoreMerge(
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
