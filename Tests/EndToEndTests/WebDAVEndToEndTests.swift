import Foundation
import HTTP
import Snapshots
import Stores
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

let webDAVServersMissing: Comment =
    "rclone, apache2 or nginx not installed: run script/bootstrap (under CI=true a missing server fails instead)"

/// `aggctl` against real WebDAV servers on 127.0.0.1, as two machines and a reader would use it.
@Suite(
    "WebDAV end to end",
    .enabled(if: WebDAVServer.Kind.allCases.allSatisfy { RequiredTool.available($0.tool) }, webDAVServersMissing))
struct WebDAVEndToEndTests {
    let root = TemporaryDirectory("aggctl-dav-e2e")

    /// A machine's environment: its own home and state, nothing inherited.
    func machine(_ name: String, _ extra: [String: String] = [:]) -> [String: String] {
        ["HOME": root.file(name), "XDG_STATE_HOME": root.file(name + "/state"), "PATH": "/usr/bin:/bin"]
            .merging(extra) { $1 }
    }

    static let credentials = [
        "AGGCTL_WEBDAV_USER": WebDAVServer.user, "AGGCTL_WEBDAV_PASSWORD": WebDAVServer.password,
    ]

    func input(used: Double, at: String) -> Data {
        Data(
            #"[{"providerID": "claude", "accountEmail": "you@example.com", "lastUpdated": "\#(at)", "session": {"usedPercent": \#(used)}, "tokens": {"today": 100}}]"#
                .utf8)
    }

    @Test(
        "two machines publish to one WebDAV store, and status --json merges them",
        arguments: WebDAVServer.Kind.allCases)
    func twoMachines(kind: WebDAVServer.Kind) throws {
        let server = try WebDAVServer.shared(kind)
        let store = "\(server.origin)/\(try server.makeFolder())/store/"
        let withPassword = store.replacingOccurrences(
            of: "http://", with: "http://\(WebDAVServer.user):\(WebDAVServer.password)@")

        // The laptop gives credentials in the environment, the desktop in the URL, the reader in ~/.netrc.
        let laptop = try BinaryRun.run(
            ["publish", "--store", store, "--device-id", "laptop", "--from", "-"],
            environment: machine("laptop", Self.credentials), input: input(used: 30, at: "2026-11-30T11:50:00Z"))
        let desktop = try BinaryRun.run(
            ["publish", "--store", withPassword, "--device-id", "desktop", "--from", "-"],
            environment: machine("desktop"), input: input(used: 45, at: "2026-11-30T11:58:00Z"))
        try root.write(
            "reader/.netrc", "machine 127.0.0.1 login \(WebDAVServer.user) password \(WebDAVServer.password)\n")
        let status = try BinaryRun.run(
            ["status", "--store", store, "--json", "--now", "2026-11-30T12:00:00Z"], environment: machine("reader"))
        let devices = try BinaryRun.run(["devices", "--store", withPassword], environment: machine("reader"))

        for run in [laptop, desktop, status, devices] {
            #expect(run.status == 0, "\(run.errors)")
            #expect(!(run.output + run.errors).contains(WebDAVServer.password))
        }
        let report = try #require(JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
        let accounts = try #require(report["accounts"] as? [[String: Any]])
        #expect(accounts.count == 1)
        #expect(accounts.first?["deviceID"] as? String == "desktop")
        #expect((accounts.first?["seenOn"] as? [String])?.sorted() == ["desktop", "laptop"])
        #expect((accounts.first?["tokens"] as? [String: Any])?["today"] as? Int == 200)
        #expect(devices.output.contains("laptop") && devices.output.contains("desktop"))
        let folder = server.root + "/" + (URL(string: store)!.pathComponents[1]) + "/store"
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["desktop.json", "laptop.json"])
    }

    @Test(
        "a reader polling during 200 rapid overwrites of one record never sees a partial record",
        arguments: WebDAVServer.Kind.allCases)
    func rapidOverwrites(kind: WebDAVServer.Kind) throws {
        let server = try WebDAVServer.shared(kind)
        let url = URL(string: "\(server.origin)/\(try server.makeFolder())/store/")!
        let client = HTTPClient(
            .init(credentials: HTTPCredentials(user: WebDAVServer.user, password: WebDAVServer.password)))
        let store = WebDAVStore(url: url, client: client)
        let device = Records.id("laptop")
        // Records of very different sizes, so that a partial read of one is never a whole other.
        @Sendable func record(_ index: Int) -> Data {
            let providers = (0...(index % 2 == 0 ? 0 : 60)).map {
                Records.entry("p\($0)", at: "2026-11-30T11:50:00Z", sessionUsed: Double(index % 100))
            }
            return Records.json(Records.snapshot("laptop", generatedAt: "2026-11-30T12:00:00Z", providers))
        }
        try store.writeRecord(record(0), for: device)
        // The writer replaces the record 200 times on another thread; this one reads the store meanwhile,
        // as `status` does (list, read, decode).
        let reads = TestLog()
        let problems = TestLog()
        let writer = Thread {
            do {
                for index in 1...200 { try store.writeRecord(record(index), for: device) }
            } catch {
                problems.append("writer: \(error)")
            }
        }
        writer.start()
        while !writer.isFinished {
            do {
                let contents = try store.readContents()
                if contents.records.count == 1 { reads.append("whole") }
                for problem in contents.problems { problems.append("\(problem.file): \(problem.reason)") }
            } catch {
                problems.append("\(error)")
            }
        }
        // Servers replace by removing, then renaming (rclone, Apache): a reader can rarely miss the record
        // for a moment even after rereading, and says so; it must never take in a torn one.
        let torn = problems.entries.filter { !$0.hasSuffix("disappeared while the store was read") }
        #expect(torn == [])
        #expect(problems.entries.count < 10, "missed the record \(problems.entries.count) times")
        #expect(
            reads.entries.count >= 5,
            "the reader read the whole store only \(reads.entries.count) times during the writes")
        #expect(try store.listRecords().map(\.name) == [device.recordName])
    }

    @Test("an unchanged store costs one PROPFIND; a changed record one GET more")
    func unchangedStoreCostsOneRequest() throws {
        let server = try WebDAVServer.shared(.apache)
        let folder = try server.makeFolder()
        let store = "\(server.origin)/\(folder)/store/"
        for (index, device) in ["a", "b", "c"].enumerated() {
            let publish = try BinaryRun.run(
                ["publish", "--store", store, "--device-id", device, "--from", "-"],
                environment: machine(device, Self.credentials),
                input: input(used: Double(10 * index), at: "2026-11-30T11:50:00Z"))
            #expect(publish.status == 0, "\(publish.errors)")
        }
        // Records younger than the parse cache's settle time are not cached: age them on the server's disk.
        let path = "\(server.root)/\(folder)/store"
        for name in try FileManager.default.contentsOfDirectory(atPath: path) {
            try FileManager.default.setAttributes(
                [.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: "\(path)/\(name)")
        }
        let reader = machine("reader", Self.credentials)
        func requestsOfOneStatus() throws -> [String] {
            let before = server.requestLog().count
            let run = try BinaryRun.run(["status", "--store", store, "--json"], environment: reader)
            #expect(run.status == 0, "\(run.errors)")
            return server.requestLog().dropFirst(before).filter { $0.contains("/\(folder)/") }
        }
        // Apache logs a request after it has sent the answer, so a GET on another connection can be logged
        // before the PROPFIND whose answer started it: count the requests, not their order in the log.
        let first = try requestsOfOneStatus()
        #expect(first.map { $0.split(separator: " ")[0] }.sorted() == ["GET", "GET", "GET", "PROPFIND"], "\(first)")
        #expect(try requestsOfOneStatus() == ["PROPFIND /\(folder)/store/ 207"])
        let publish = try BinaryRun.run(
            ["publish", "--store", store, "--device-id", "b", "--from", "-"],
            environment: machine("b", Self.credentials),
            input: input(used: 55, at: "2026-11-30T11:55:00Z"))
        #expect(publish.status == 0)
        #expect(
            try requestsOfOneStatus().sorted() == ["GET /\(folder)/store/b.json 200", "PROPFIND /\(folder)/store/ 207"])
    }

    @Test("publish sweeps its own temporary files an hour old, at most hourly on a server")
    func sweepsLeftovers() throws {
        let server = try WebDAVServer.shared(.apache)
        let folder = try server.makeFolder()
        let store = "\(server.origin)/\(folder)/store/"
        let laptop = machine("laptop", Self.credentials)
        func publish() throws {
            let run = try BinaryRun.run(
                ["publish", "--store", store, "--device-id", "laptop", "--from", "-"], environment: laptop,
                input: input(used: 30, at: "2026-11-30T11:50:00Z"))
            #expect(run.status == 0, "\(run.errors)")
        }
        try publish()
        let path = "\(server.root)/\(folder)/store"
        func plantLeftover() throws {
            for name in [".laptop.json.1.aa.tmp", ".desktop.json.1.bb.tmp"] {
                try Data("x".utf8).write(to: URL(fileURLWithPath: "\(path)/\(name)"))
                try FileManager.default.setAttributes(
                    [.modificationDate: Date().addingTimeInterval(-7200)], ofItemAtPath: "\(path)/\(name)")
            }
        }
        let stamps = root.file("laptop/state/aggctl/cache")
        try FileManager.default.removeItem(atPath: stamps)  // as if the last sweep was long ago
        try plantLeftover()
        try publish()
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: path).sorted() == [
                ".desktop.json.1.bb.tmp", "laptop.json",
            ])
        try plantLeftover()
        try publish()
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: path).contains(".laptop.json.1.aa.tmp"),
            "swept within the hour")
    }

    @Test("all together: watch reads a WebDAV store every second and tells a webhook of depleted, then restored")
    func watchOverWebDAV() throws {
        let server = try WebDAVServer.shared(.nginx)
        let store = "\(server.origin)/\(try server.makeFolder())/store/"
        let hooks = try LocalServer.sharedHTTPServer()
        let hookPath = "/hook/\(UUID().uuidString.prefix(8))"
        func publish(used: Double, at: String) throws {
            let run = try BinaryRun.run(
                ["publish", "--store", store, "--device-id", "laptop", "--from", "-"],
                environment: machine("laptop", Self.credentials), input: input(used: used, at: at))
            #expect(run.status == 0, "\(run.errors)")
        }
        try publish(used: 40, at: "2026-11-30T11:50:00Z")
        let watch = Process()
        watch.executableURL = URL(fileURLWithPath: BinaryRun.binary)
        watch.arguments = [
            "watch", "--store", store, "--interval", "1", "--notify", "webhook:" + hooks.origin + hookPath,
            "--now", "2026-11-30T12:00:00Z",
        ]
        watch.environment = machine("watcher", Self.credentials)
        watch.standardOutput = FileHandle.nullDevice
        watch.standardError = FileHandle.nullDevice
        try watch.run()
        defer { if watch.isRunning { kill(watch.processIdentifier, SIGKILL) } }
        func kinds() throws -> [String] {
            try requests(hooks).filter { $0.path == hookPath }.compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.body.utf8)) as? [String: Any])?["kind"] as? String
            }
        }
        func waitFor(_ expected: [String]) throws -> Bool {
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                if try kinds() == expected { return true }
                usleep(100_000)
            }
            return false
        }
        // Whether watch's first round saw 40 % or already 100 %, it tells of the depletion once.
        try publish(used: 100, at: "2026-11-30T11:55:00Z")
        #expect(try waitFor(["depleted"]), "\((try? kinds()) ?? [])")
        try publish(used: 10, at: "2026-11-30T11:58:00Z")
        #expect(try waitFor(["depleted", "restored"]), "\((try? kinds()) ?? [])")
        kill(watch.processIdentifier, SIGTERM)
        watch.waitUntilExit()
        #expect(watch.terminationStatus == 0)
    }

    @Test("a wrong password exits 1, naming the URL and never the password")
    func wrongPassword() throws {
        let server = try WebDAVServer.shared(.apache)
        let store = "\(server.origin)/\(try server.makeFolder())/store/"
        let environment = machine(
            "laptop", ["AGGCTL_WEBDAV_USER": WebDAVServer.user, "AGGCTL_WEBDAV_PASSWORD": "Wr0ng-Secret"])
        let publish = try BinaryRun.run(
            ["publish", "--store", store, "--from", "-"], environment: environment,
            input: input(used: 30, at: "2026-11-30T11:50:00Z"))
        let status = try BinaryRun.run(["status", "--store", store], environment: environment)
        for run in [publish, status] {
            #expect(run.status == 1)
            #expect(run.errors.contains("'\(store)'") && run.errors.contains("user name or password"), "\(run.errors)")
            #expect(!run.errors.contains("Wr0ng-Secret"))
            #expect(run.errors.split(separator: "\n").count == 1)
        }
    }

    @Test("doctor checks server, login, clock, listing and a probe write, and says what to fix")
    func doctor() throws {
        let server = try WebDAVServer.shared(.apache)
        let folder = try server.makeFolder()
        let store = "\(server.origin)/\(folder)/store/"
        // An existing store: doctor creates none (see doctorTellsTheTruth).
        try FileManager.default.createDirectory(
            atPath: "\(server.root)/\(folder)/store", withIntermediateDirectories: true)
        chmod("\(server.root)/\(folder)/store", 0o777)
        let healthy = try BinaryRun.run(["doctor", "--store", store], environment: machine("laptop", Self.credentials))
        #expect(healthy.status == 0, "\(healthy.output)\(healthy.errors)")
        let checks = healthy.output.split(separator: "\n").filter { !$0.hasPrefix(" ") }.map {
            $0.split(separator: " ")[1]
        }
        #expect(
            checks == [
                "store", "credentials", "server", "login", "clock", "listing", "write", "device", "machines", "sealing",
            ],
            "\(healthy.output)")
        #expect(healthy.output.contains("user 'aggctl' from AGGCTL_WEBDAV_PASSWORD"))
        #expect(healthy.output.contains("wrote, read back and removed a probe record"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.root + URL(string: store)!.path) == [])

        let wrong = store.replacingOccurrences(of: "http://", with: "http://aggctl:Wr0ng-Secret@")
        let refused = try BinaryRun.run(["doctor", "--store", wrong], environment: machine("laptop"))
        #expect(refused.status == 1)
        #expect(refused.output.contains("FAIL  login       the server refused the user name or password (HTTP 401)"))
        #expect(refused.output.contains("fix: check the password in the URL"))
        #expect(!(refused.output + refused.errors).contains("Wr0ng-Secret"))

        let closed = try BinaryRun.run(
            ["doctor", "--store", "http://127.0.0.1:1/store/"], environment: machine("laptop"))
        #expect(closed.status == 1)
        #expect(closed.output.contains("FAIL  server") && closed.output.contains("fix: check the host and port"))
    }

    @Test(
        "doctor judges the login by a PROPFIND (rclone answers OPTIONS to anyone), creates nothing, lists broken files")
    func doctorTellsTheTruth() throws {
        let server = try WebDAVServer.shared(.rclone)
        let folder = try server.makeFolder()
        let store = "\(server.origin)/\(folder)/store/"
        let wrong = try BinaryRun.run(
            ["doctor", "--store", store],
            environment: machine(
                "laptop", ["AGGCTL_WEBDAV_USER": WebDAVServer.user, "AGGCTL_WEBDAV_PASSWORD": "Wr0ng"]))
        #expect(wrong.status == 1)
        #expect(
            wrong.output.contains("FAIL  login       the server refused the user name or password"), "\(wrong.output)")
        #expect(!wrong.output.contains("ok    login"))

        let missing = try BinaryRun.run(["doctor", "--store", store], environment: machine("laptop", Self.credentials))
        #expect(missing.status == 0, "\(missing.output)")
        #expect(missing.output.contains("warn  listing     the store does not exist yet"))
        #expect(missing.output.contains("warn  write       not tried: the store does not exist yet"))
        #expect(!FileManager.default.fileExists(atPath: "\(server.root)/\(folder)/store"), "doctor created the store")

        try FileManager.default.createDirectory(
            atPath: "\(server.root)/\(folder)/store/folder.json", withIntermediateDirectories: true)
        try Data("{broken".utf8).write(to: URL(fileURLWithPath: "\(server.root)/\(folder)/store/broken.json"))
        let entry = Records.entry(at: "2026-11-30T11:50:00Z")
        try Records.json(Records.snapshot("good", generatedAt: "2026-11-30T11:50:00Z", [entry])).write(
            to: URL(fileURLWithPath: "\(server.root)/\(folder)/store/good.json"))
        let broken = try BinaryRun.run(["doctor", "--store", store], environment: machine("laptop", Self.credentials))
        #expect(broken.output.contains("warn  listing     1 record, and 1 file with problems"), "\(broken.output)")
        #expect(broken.output.contains("warn  record      'broken.json': not valid JSON"), "\(broken.output)")
    }

    @Test("a server that accepts connections and never answers fails the run after the timeout")
    func silentServer() throws {
        let listener = try SilentListener()
        let store = "http://127.0.0.1:\(listener.port)/store/"
        let started = Date()
        let run = try BinaryRun.run(
            ["status", "--store", store], environment: machine("reader", ["AGGCTL_HTTP_TIMEOUT": "1"]), timeout: 30)
        #expect(run.status == 1)
        #expect(
            run.errors.contains("cannot list '\(store)'") && run.errors.contains("no answer within 1 s"),
            "\(run.errors)")
        #expect(Date().timeIntervalSince(started) < 10)
    }

    @Test("garbage XML is a clear error at once; 500s are retried, then a clear error; a 500 then success recovers")
    func misbehavingServers() throws {
        let server = try LocalServer.sharedHTTPServer()
        let key = UUID().uuidString.prefix(8)
        func status(_ path: String) throws -> BinaryRun {
            try BinaryRun.run(["status", "--store", server.origin + path, "--json"], environment: machine("reader"))
        }
        let garbage = try status("/garbage/\(key)/")
        #expect(garbage.status == 1)
        #expect(garbage.errors.contains("not a WebDAV listing (bad XML at line 1: "), "\(garbage.errors)")
        let failing = try status("/failing/\(key)/")
        #expect(failing.status == 1)
        #expect(failing.errors.contains("the server answered HTTP 500"), "\(failing.errors)")
        let flaky = try status("/flaky/\(key)/1/")
        #expect(flaky.status == 0, "\(flaky.errors)")

        let log = try requests(server)
        #expect(log.filter { $0.path == "/garbage/\(key)/" }.count == 1)
        #expect(log.filter { $0.path == "/failing/\(key)/" }.count == 4)
        #expect(log.filter { $0.path == "/flaky/\(key)/1/" }.count == 2)
    }
}

/// What the shared test HTTP server received.
struct LoggedRequest: Decodable {
    var method: String
    var path: String
    var body: String
    var idempotencyKey: String?
    var authorization: String?
    var headers: [String]
    /// What an ntfy, Slack or Discord endpoint of the server read from the request (nil: it refused it).
    var decoded: [String: String?]?
}

func requests(_ server: LocalServer) throws -> [LoggedRequest] {
    let data = try HTTPClient().send(HTTPRequest(url: server.origin + "/log")).body
    return try JSONDecoder().decode([LoggedRequest].self, from: data)
}
