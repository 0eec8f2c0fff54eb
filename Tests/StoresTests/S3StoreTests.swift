import Foundation
import HTTP
import Snapshots
import Stores
import TestSupport
import Testing

/// An S3 store under a fresh prefix of the test bucket on a real server; planting goes past the store,
/// straight to the server.
struct S3Harness: StoreHarness {
    let server: S3Server
    let prefix: String

    init(_ kind: S3Server.Kind) throws {
        server = try S3Server.shared(kind)
        prefix = server.makePrefix() + "store/"
    }

    func makeStore() throws -> any RecordStore { try server.store(prefix: prefix) }

    func plant(_ name: String, _ data: Data) throws { try server.put(prefix + name, data) }

    func allNames() throws -> [String] { try server.keys(under: prefix) }

    /// The same store reached through a fault proxy that counts and breaks requests; it keeps the Host
    /// header, which the signature covers.
    func storeThroughProxy() throws -> (store: any RecordStore, proxy: FaultProxy) {
        let proxy = try FaultProxy(upstream: server.origin, keepsHost: true)
        var environment = server.environment
        environment["AWS_ENDPOINT_URL"] = proxy.origin
        return (try server.store(prefix: prefix, environment: environment), proxy)
    }
}

let missingS3Reason: Comment =
    "not installed: run script/bootstrap (it installs SeaweedFS and moto into .build/s3-venv; under CI=true a missing server fails the run instead of skipping)"

@Suite("S3 store on SeaweedFS", .enabled(if: S3Server.Kind.seaweedfs.isAvailable, "SeaweedFS \(missingS3Reason)"))
struct SeaweedFSStoreTests {
    @Test(arguments: StoreConformance.checks)
    func conforms(to check: ConformanceCheck) throws {
        try check.run(S3Harness(.seaweedfs))
    }
}

@Suite("S3 store on moto", .enabled(if: S3Server.Kind.moto.isAvailable, "moto \(missingS3Reason)"))
struct MotoStoreTests {
    @Test(arguments: StoreConformance.checks)
    func conforms(to check: ConformanceCheck) throws {
        try check.run(S3Harness(.moto))
    }
}

@Suite("S3 store behaviour", .enabled(if: S3Server.Kind.seaweedfs.isAvailable, "SeaweedFS \(missingS3Reason)"))
struct S3StoreBehaviourTests {
    @Test("2500 records (three listing pages) are all listed and merged")
    func pagedListing() throws {
        let harness = try S3Harness(.seaweedfs)
        let names = (0..<2500).map { String(format: "dev-%04d", $0) }
        // Planted in parallel: 2500 PUTs one by one would be most of the test.
        DispatchQueue.concurrentPerform(iterations: 16) { worker in
            for index in stride(from: worker, to: names.count, by: 16) {
                try? harness.plant(
                    names[index] + ".json", StoreConformance.record(Records.id(names[index]), used: Double(index % 100))
                )
            }
        }
        let store = try harness.makeStore()
        let listing = try store.listRecords()
        #expect(listing.count == 2500)
        #expect(Set(listing.map(\.name)) == Set(names.map { $0 + ".json" }))
        var cache: ParseCache? = ParseCache(store: store.displayName, readerVersion: "test")
        // An hour on: the records are old enough for the cache to trust their ETags.
        let later = Date().addingTimeInterval(3600)
        let contents = try store.readContents(cache: &cache, now: later)
        #expect(contents.records.count == 2500)
        #expect(contents.problems.isEmpty)
        // Again through a proxy that counts: the unchanged store costs its three listing pages only.
        let (counted, proxy) = try harness.storeThroughProxy()
        let again = try counted.readContents(cache: &cache, now: later)
        #expect(again.records.count == 2500)
        let requests = try proxy.requests()
        #expect(requests.count == 3, "\(requests.map { "\($0.method) \($0.path)" })")
        #expect(requests.allSatisfy { $0.method == "GET" && $0.path.contains("list-type=2") })
    }

    @Test("a first read has as many objects in flight as the store reads at once, whatever the cores")
    func readsAsManyAtOnceAsItSays() throws {
        let (store, proxy) = try S3Harness(.seaweedfs).storeThroughProxy()
        let (peak, contents) = try proxy.peakWhileReading(store, records: 2 * store.traits.readParallelism)
        #expect(contents.records.count == 2 * store.traits.readParallelism)
        #expect(contents.problems.isEmpty)
        #expect(peak == store.traits.readParallelism)
    }

    @Test("a throttled listing (503) is retried with the shared policy, and then succeeds")
    func throttled() throws {
        let harness = try S3Harness(.seaweedfs)
        let (store, proxy) = try harness.storeThroughProxy()
        try store.writeRecord(StoreConformance.record(StoreConformance.laptop), for: StoreConformance.laptop)
        try proxy.inject("status", method: "GET", path: "list-type", count: 2, parameters: ["status": 503])
        #expect(try store.listRecords().map(\.name) == [StoreConformance.laptop.recordName])
        let lists = try proxy.requests().filter { $0.path.contains("list-type") }
        #expect(lists.map(\.fault) == ["status", "status", nil])
    }

    @Test("a wrong secret is permission denied, and the message names neither key")
    func wrongSecret() throws {
        let server = try S3Server.shared(.seaweedfs)
        var environment = server.environment
        environment["AWS_SECRET_ACCESS_KEY"] = "wrong-secret-value"
        let store = try server.store(prefix: server.makePrefix(), environment: environment)
        do {
            _ = try store.listRecords()
            Issue.record("a wrong secret was accepted")
        } catch let error as StoreError {
            let text = "\(error)"
            guard case .permissionDenied = error else { return #expect(Bool(false), "\(text)") }
            #expect(text.contains("secret access key"), "\(text)")
            #expect(!text.contains(S3Server.accessKey) && !text.contains("wrong-secret-value"), "\(text)")
        }
    }

    @Test("a missing bucket is a clear error, and a write creates no bucket")
    func missingBucket() throws {
        let server = try S3Server.shared(.seaweedfs)
        let location = try StoreLocation.parse("s3://no-such-bucket-here/team/")
        let store = try S3Backend().open(
            location, context: StoreContext(environment: server.environment, home: "/nonexistent"))
        let listing = #expect(throws: StoreError.self) { try store.listRecords() }
        #expect(listing.map { "\($0)" }?.contains("bucket 'no-such-bucket-here' does not exist") == true)
        do {
            try store.writeRecord(StoreConformance.record(StoreConformance.laptop), for: StoreConformance.laptop)
            Issue.record("a write into a missing bucket succeeded")
        } catch {
            #expect("\(error)".contains("bucket 'no-such-bucket-here' does not exist"), "\(error)")
            #expect("\(error)".contains("creates no buckets"), "\(error)")
        }
        let buckets = String(decoding: try server.send("GET", "/").body, as: UTF8.self)
        #expect(!buckets.contains("no-such-bucket-here"))
    }

    @Test("a listing cut short is asked for again, and one cut short every time fails instead of shrinking the store")
    func cutShortListing() throws {
        let harness = try S3Harness(.seaweedfs)
        let (store, proxy) = try harness.storeThroughProxy()
        try store.writeRecord(StoreConformance.record(StoreConformance.laptop), for: StoreConformance.laptop)
        try store.writeRecord(StoreConformance.record(StoreConformance.desktop), for: StoreConformance.desktop)
        try proxy.inject("truncate-nolength", method: "GET", path: "list-type", parameters: ["bytes": 300])
        #expect(try store.listRecords().count == 2)
        try proxy.inject("truncate-nolength", method: "GET", path: "list-type", count: 5, parameters: ["bytes": 300])
        #expect {
            try store.listRecords()
        } throws: { error in
            "\(error)".contains("ended early 3 times")
        }
    }

    @Test("a record name that is odd but valid is stored under the prefix, encoded, and read back")
    func oddNames() throws {
        let harness = try S3Harness(.seaweedfs)
        let store = try harness.makeStore()
        let id = Records.id("laptop_1.home-2")
        try store.writeRecord(StoreConformance.record(id), for: id)
        #expect(try harness.allNames() == ["laptop_1.home-2.json"])
        #expect(try store.readRecord(named: "laptop_1.home-2.json") == StoreConformance.record(id))
    }

    @Test("keys below the prefix's own level are not records of the store")
    func deeperKeysIgnored() throws {
        let harness = try S3Harness(.seaweedfs)
        try harness.plant("sub/inner.json", StoreConformance.record(StoreConformance.desktop))
        let store = try harness.makeStore()
        try store.writeRecord(StoreConformance.record(StoreConformance.laptop), for: StoreConformance.laptop)
        #expect(try store.listRecords().map(\.name) == [StoreConformance.laptop.recordName])
    }
}
