import Foundation
import HTTP
import Snapshots
import Stores
import TestSupport
import Testing

/// A WebDAV store in a fresh folder of a real server on 127.0.0.1; planting goes straight to the served
/// folder on disk.
struct WebDAVHarness: StoreHarness {
    let server: WebDAVServer
    let folder: String

    init(_ kind: WebDAVServer.Kind) throws {
        server = try WebDAVServer.shared(kind)
        folder = try server.makeFolder()
    }

    var storeURL: URL { URL(string: "\(server.origin)/\(folder)/store/")! }
    var storePath: String { "\(server.root)/\(folder)/store" }

    static func client(password: String = WebDAVServer.password, timeout: Duration = .seconds(20)) -> HTTPClient {
        // Retries as in the binary, without its waits (nginx answers a first write to a new store with 500s).
        HTTPClient(
            .init(
                credentials: HTTPCredentials(user: WebDAVServer.user, password: password), timeout: timeout,
                retry: RetryPolicy(attempts: 4, initialDelay: 0.001, maximumDelay: 0.004, jitter: 0) {
                    Thread.sleep(forTimeInterval: $0)
                }))
    }

    func makeStore() throws -> any RecordStore { WebDAVStore(url: storeURL, client: Self.client()) }

    func plant(_ name: String, _ data: Data) throws {
        if !FileManager.default.fileExists(atPath: storePath) {
            try FileManager.default.createDirectory(atPath: storePath, withIntermediateDirectories: true)
            chmod(storePath, 0o777)
        }
        try data.write(to: URL(fileURLWithPath: "\(storePath)/\(name)"))
    }

    var listsHiddenFiles: Bool { server.kind != .nginx }

    func allNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: storePath).sorted()
    }
}

let missingServerReason: Comment =
    "not installed: run script/bootstrap (under CI=true a missing server fails the run instead of skipping)"

@Suite("WebDAV store on rclone", .enabled(if: RequiredTool.available("rclone"), "rclone \(missingServerReason)"))
struct RcloneStoreTests {
    @Test(arguments: StoreConformance.checks)
    func conforms(to check: ConformanceCheck) throws {
        try check.run(WebDAVHarness(.rclone))
    }
}

@Suite("WebDAV store on Apache", .enabled(if: RequiredTool.available("apache2"), "apache2 \(missingServerReason)"))
struct ApacheStoreTests {
    @Test(arguments: StoreConformance.checks)
    func conforms(to check: ConformanceCheck) throws {
        try check.run(WebDAVHarness(.apache))
    }
}

@Suite("WebDAV store on nginx", .enabled(if: RequiredTool.available("nginx"), "nginx \(missingServerReason)"))
struct NginxStoreTests {
    @Test(arguments: StoreConformance.checks)
    func conforms(to check: ConformanceCheck) throws {
        try check.run(WebDAVHarness(.nginx))
    }
}

@Suite(
    "WebDAV store failures", .enabled(if: RequiredTool.available("apache2"), "apache2 \(missingServerReason)"))
struct WebDAVStoreFailureTests {
    @Test("a wrong password is permission denied, and the message never holds the password")
    func wrongPassword() throws {
        let harness = try WebDAVHarness(.apache)
        let store = WebDAVStore(url: harness.storeURL, client: WebDAVHarness.client(password: "wrong-secret"))
        do {
            try store.writeRecord(StoreConformance.record(StoreConformance.laptop), for: StoreConformance.laptop)
            Issue.record("a wrong password wrote a record")
        } catch let error as StoreError {
            guard case .permissionDenied = error else { throw error }
            #expect("\(error)".contains(harness.storeURL.absoluteString))
            #expect(!"\(error)".contains("wrong-secret") && !"\(error)".contains(WebDAVServer.password))
        }
    }

    @Test("Digest authentication: the client answers Apache's challenge, and a wrong password is refused")
    func digest() throws {
        let server = try WebDAVServer.shared(.apache, digest: true)
        let url = URL(string: "\(server.origin)/\(try server.makeFolder())/store/")!
        let store = WebDAVStore(url: url, client: WebDAVHarness.client())
        try store.writeRecord(StoreConformance.record(StoreConformance.laptop), for: StoreConformance.laptop)
        #expect(try store.listRecords().map(\.name) == [StoreConformance.laptop.recordName])
        #expect(
            try store.readRecord(named: StoreConformance.laptop.recordName)
                == StoreConformance.record(StoreConformance.laptop))
        let wrong = WebDAVStore(url: url, client: WebDAVHarness.client(password: "wrong-secret"))
        #expect(throws: StoreError.self) { try wrong.listRecords() }
        #expect(server.requestLog().contains { $0.hasPrefix("PROPFIND") && $0.hasSuffix(" 401") })
    }

    @Test("without any credentials, the message says where to give them")
    func noCredentials() throws {
        let harness = try WebDAVHarness(.apache)
        let store = WebDAVStore(url: harness.storeURL, client: HTTPClient(.init(retry: .never)))
        do {
            _ = try store.listRecords()
            Issue.record("listed without credentials")
        } catch {
            #expect("\(error)".hasSuffix("AGGCTL_WEBDAV_USER and AGGCTL_WEBDAV_PASSWORD, or ~/.netrc)"), "\(error)")
        }
    }

    @Test("credentials in the store's URL are used, and never shown")
    func userinfo() throws {
        let harness = try WebDAVHarness(.apache)
        var components = URLComponents(url: harness.storeURL, resolvingAgainstBaseURL: false)!
        components.user = WebDAVServer.user
        components.password = WebDAVServer.password
        let url = components.url!
        let credentials = WebDAVCredentials.resolve(for: url, environment: [:], netrcPath: nil)
        let store = WebDAVStore(url: url, client: HTTPClient(.init(credentials: credentials)))
        try store.writeRecord(StoreConformance.record(StoreConformance.laptop), for: StoreConformance.laptop)
        #expect(store.displayName == harness.storeURL.absoluteString)
        #expect(try store.listRecords().map(\.name) == [StoreConformance.laptop.recordName])
    }

    @Test("a store whose parent collection is missing is not created, and says why")
    func parentMissing() throws {
        let harness = try WebDAVHarness(.apache)
        let url = URL(string: "\(harness.server.origin)/\(harness.folder)/no/such/store/")!
        let store = WebDAVStore(url: url, client: WebDAVHarness.client())
        #expect(throws: StoreError.parentMissing(store: url.absoluteString)) {
            try store.writeRecord(StoreConformance.record(StoreConformance.laptop), for: StoreConformance.laptop)
        }
    }

    @Test("on servers with ETags, a same-size rewrite within the same second changes the listed version")
    func versionsChange() throws {
        // nginx lists only dates and lengths: there the parse cache's settle time covers it (conformance).
        for kind in [WebDAVServer.Kind.rclone, .apache] where RequiredTool.available(kind.tool) {
            let store = try WebDAVHarness(kind).makeStore()
            var versions = Set<RecordVersion?>()
            for used in [11.0, 12, 13] {
                try store.writeRecord(
                    StoreConformance.record(StoreConformance.laptop, used: used), for: StoreConformance.laptop)
                versions.insert(try store.listRecords().first?.version)
            }
            #expect(versions.count == 3, "\(kind)")
        }
    }
}

/// A WebDAV store reached through the fault proxy (`Tests/Servers/fault_proxy.py`), which breaks the
/// first requests of every kind: two 503s for each PROPFIND, GET and PUT, a MOVE whose answer is lost
/// after it took effect, a DELETE whose connection is reset before it reaches the server. The store must
/// keep every promise of the conformance suite all the same.
struct FaultyWebDAVHarness: StoreHarness {
    let direct: WebDAVHarness
    let proxy: FaultProxy

    init(_ kind: WebDAVServer.Kind) throws {
        direct = try WebDAVHarness(kind)
        proxy = try FaultProxy(upstream: direct.server.origin)
        for method in ["PROPFIND", "GET", "PUT"] {
            try proxy.inject("status", method: method, count: 2, parameters: ["status": 503])
        }
        try proxy.inject("drop-response", method: "MOVE")
        try proxy.inject("reset", method: "DELETE")
    }

    func makeStore() throws -> any RecordStore {
        WebDAVStore(url: URL(string: "\(proxy.origin)/\(direct.folder)/store/")!, client: WebDAVHarness.client())
    }

    func plant(_ name: String, _ data: Data) throws { try direct.plant(name, data) }
    func allNames() throws -> [String] { try direct.allNames() }
    var listsHiddenFiles: Bool { direct.listsHiddenFiles }
}

@Suite(
    "WebDAV stores through a fault-injecting proxy",
    .enabled(
        if: WebDAVServer.Kind.allCases.allSatisfy { RequiredTool.available($0.tool) },
        "rclone, apache2 or nginx \(missingServerReason)"))
struct FaultyWebDAVStoreTests {
    @Test(arguments: WebDAVServer.Kind.allCases, StoreConformance.checks)
    func conforms(kind: WebDAVServer.Kind, to check: ConformanceCheck) throws {
        try check.run(FaultyWebDAVHarness(kind))
    }
}

@Suite(
    "WebDAV reads in parallel",
    .enabled(if: RequiredTool.available("nginx"), "nginx \(missingServerReason)"))
struct WebDAVReadParallelismTests {
    @Test("a first read has as many records in flight as the store reads at once, whatever the cores")
    func readsAsManyAtOnceAsItSays() throws {
        let direct = try WebDAVHarness(.nginx)
        let proxy = try FaultProxy(upstream: direct.server.origin)
        let store = WebDAVStore(
            url: URL(string: "\(proxy.origin)/\(direct.folder)/store/")!, client: WebDAVHarness.client())
        let (peak, contents) = try proxy.peakWhileReading(store, records: 2 * store.traits.readParallelism)
        #expect(contents.records.count == 2 * store.traits.readParallelism)
        #expect(contents.problems.isEmpty)
        // Dispatch ran as many at once as there are cores: 2 on the machines this project runs on.
        #expect(peak == store.traits.readParallelism)
    }
}
