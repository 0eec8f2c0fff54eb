import Foundation
import Snapshots
import Stores
import TestSupport
import Testing

/// A directory store in a fresh temporary folder.
struct DirectoryHarness: StoreHarness {
    let root = TemporaryDirectory("aggctl-store")
    var storePath: String { root.file("store") }

    func makeStore() throws -> any RecordStore { DirectoryStore(path: storePath) }

    func plant(_ name: String, _ data: Data) throws {
        try root.write("store/" + name, data)
    }

    func allNames() throws -> [String] { root.entries("store") }
}

struct DirectoryStoreTests {
    @Test(arguments: StoreConformance.checks)
    func conforms(to check: ConformanceCheck) throws {
        try check.run(DirectoryHarness())
    }

    @Test("a store folder made again under the same path is followed by a store that stays open (watch)")
    func folderMadeAgain() throws {
        let harness = DirectoryHarness()
        func record(_ id: String) -> Data {
            Records.json(
                Records.snapshot(id, generatedAt: "2026-11-30T12:00:00Z", [Records.entry(at: "2026-11-30T11:59:00Z")]))
        }
        try harness.plant("dev-a.json", record("dev-a"))
        let store = try harness.makeStore()
        #expect(try store.readContents().records.map(\.fileName) == ["dev-a.json"])
        try FileManager.default.moveItem(atPath: harness.storePath, toPath: harness.root.file("old"))
        try harness.plant("dev-b.json", record("dev-b"))
        let listing = try store.listRecords()
        #expect(listing.map(\.name) == ["dev-b.json"])
        #expect(listing.allSatisfy { $0.version != nil })
        let contents = try store.readContents()
        #expect(contents.records.map(\.fileName) == ["dev-b.json"])
        #expect(contents.problems.isEmpty)
    }

    @Test("a symbolic link in the store is refused, never followed")
    func symbolicLinksAreNotFollowed() throws {
        let harness = DirectoryHarness()
        let outside = try harness.root.write("secret.json", "{\"outside\": true}")
        try harness.plant("placeholder.txt", Data())
        try FileManager.default.createSymbolicLink(
            atPath: harness.storePath + "/evil.json", withDestinationPath: outside)
        let store = try harness.makeStore()
        #expect(throws: StoreError.notARegularFile(name: "evil.json")) {
            try store.readRecord(named: "evil.json")
        }
        let contents = try store.readContents()
        #expect(contents.problems.map(\.file) == ["evil.json"])
    }

    @Test("a nested folder that is a link (ledger/, or a device's folder in it) is neither written through nor listed")
    func nestedLinksAreRefused() throws {
        let harness = DirectoryHarness()
        try harness.plant("placeholder.txt", Data())
        let elsewhere = harness.root.file("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        try harness.root.write("elsewhere/2026-11.json", "not the store's")
        let month = DeviceID(alreadyValidated: "2026-12")
        for link in ["ledger", "ledger/laptop-1"] {
            try? FileManager.default.removeItem(atPath: harness.storePath + "/ledger")
            if link != "ledger" {
                try FileManager.default.createDirectory(
                    atPath: harness.storePath + "/ledger", withIntermediateDirectories: true)
            }
            try FileManager.default.createSymbolicLink(
                atPath: harness.storePath + "/" + link, withDestinationPath: elsewhere)
            let store = try harness.makeStore()
            let mine = try #require(store.nested(DeviceID(alreadyValidated: "ledger"))?.nested(StoreConformance.laptop))
            #expect(throws: StoreError.self, "\(link)") { try mine.writeRecord(Data("x".utf8), for: month) }
            #expect(throws: StoreError.self, "\(link)") { try mine.listRecords() }
            #expect(harness.root.entries("elsewhere") == ["2026-11.json"], "nothing written through \(link)")
        }
    }

    @Test("a pipe named like a record does not hang the reader")
    func fifoIsRefused() throws {
        let harness = DirectoryHarness()
        try harness.plant("placeholder.txt", Data())
        #expect(mkfifo(harness.storePath + "/pipe.json", 0o644) == 0)
        let store = try harness.makeStore()
        #expect(throws: StoreError.notARegularFile(name: "pipe.json")) {
            try store.readRecord(named: "pipe.json")
        }
    }

    @Test("a socket named like a record is 'not a regular file', not 'no such device or address'")
    func socketIsRefused() throws {
        let harness = DirectoryHarness()
        try harness.plant("placeholder.txt", Data())
        let socket = try UnixSocket(path: harness.storePath + "/sock.json")
        defer { socket.close() }
        let store = try harness.makeStore()
        #expect(throws: StoreError.notARegularFile(name: "sock.json")) {
            try store.readRecord(named: "sock.json")
        }
    }

    @Test("a store whose parent folder is missing is not created")
    func parentIsNotCreated() throws {
        let root = TemporaryDirectory()
        let store = DirectoryStore(path: root.file("missing/store"))
        #expect(throws: StoreError.parentMissing(store: root.file("missing/store"))) {
            try store.writeRecord(StoreConformance.record(StoreConformance.laptop), for: StoreConformance.laptop)
        }
        #expect(root.entries().isEmpty)
    }

    @Test("a store path that is a file is not a store")
    func fileIsNotAStore() throws {
        let root = TemporaryDirectory()
        let path = try root.write("plain", "x")
        #expect(throws: StoreError.notAStore(store: path)) { try DirectoryStore(path: path).listRecords() }
    }

    @Test("two files claiming one deviceID: the one named after it is read, the other reported")
    func duplicateDeviceIDs() throws {
        let harness = DirectoryHarness()
        let laptop = StoreConformance.laptop
        try harness.plant("copy-of-laptop.json", StoreConformance.record(laptop, used: 99))
        try harness.plant(laptop.recordName, StoreConformance.record(laptop, used: 10))
        let contents = try DirectoryStore(path: harness.storePath).readContents()
        #expect(contents.records.map(\.fileName) == [laptop.recordName])
        #expect(contents.records.first?.snapshot.providers.first?.session?.usedPercent == 10)
        #expect(contents.problems.map(\.file) == ["copy-of-laptop.json"])
        #expect(contents.problems.first?.reason.contains("claims deviceID 'laptop-1'") == true)
    }

    @Test("three files claiming one deviceID: each copy is told of the file that is read in the end")
    func threeClaimants() throws {
        let harness = DirectoryHarness()
        let laptop = StoreConformance.laptop
        try harness.plant("a-copy.json", StoreConformance.record(laptop, used: 99))
        try harness.plant("b-copy.json", StoreConformance.record(laptop, used: 98))
        try harness.plant(laptop.recordName, StoreConformance.record(laptop, used: 10))
        let contents = try DirectoryStore(path: harness.storePath).readContents()
        #expect(contents.records.map(\.fileName) == [laptop.recordName])
        #expect(contents.problems.map(\.file) == ["a-copy.json", "b-copy.json"])
        for problem in contents.problems {
            #expect(problem.reason.contains("already read from '\(laptop.recordName)'"), "\(problem.reason)")
        }
    }

    @Test("a record rewritten in place while it is read gives a record or a problem, never a crash")
    func recordChangingWhileRead() throws {
        let harness = DirectoryHarness()
        let laptop = StoreConformance.laptop
        let small = StoreConformance.record(laptop, used: 10)
        var large = Records.snapshot(
            laptop.rawValue, generatedAt: "2026-11-30T12:00:00Z",
            (0..<200).map { Records.entry(email: "user\($0)@example.com", at: "2026-11-30T11:59:00Z") })
        large.deviceName = String(repeating: "x", count: 5000)
        let big = Records.json(large)
        try harness.plant(laptop.recordName, small)
        let path = harness.storePath + "/" + laptop.recordName

        // A careless writer: truncates and rewrites the file in place, in two halves, over and over.
        let stopped = TestLog()  // a lock-guarded stop signal: a plain shared Bool is a data race
        let writer = Thread {
            var flip = false
            while stopped.entries.isEmpty {
                let data = flip ? big : small
                flip.toggle()
                guard let handle = FileHandle(forWritingAtPath: path) else { continue }
                try? handle.truncate(atOffset: 0)
                try? handle.write(contentsOf: data.prefix(data.count / 2))
                try? handle.write(contentsOf: data.suffix(from: data.count / 2))
                try? handle.close()
            }
        }
        writer.start()
        defer { stopped.append("stop") }

        let store = DirectoryStore(path: harness.storePath)
        var records = 0
        var problems = 0
        for _ in 0..<2000 {
            let contents = try store.readContents()
            records += contents.records.count
            problems += contents.problems.count
            for record in contents.records {
                // Whatever was read whole is one of the two versions, not a mixture.
                #expect([1, 200].contains(record.snapshot.providers.count))
            }
        }
        stopped.append("stop")
        #expect(records + problems >= 2000)
        #expect(records > 0)
    }
}
