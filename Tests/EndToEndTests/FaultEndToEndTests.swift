import Foundation
import Snapshots
import TestSupport
import Testing

/// Faults between aggctl and real WebDAV servers, injected by `Tests/Servers/fault_proxy.py`: lost
/// answers, cut-short bodies, stalls. The properties: no record deleted by a retry, no listing taken as
/// complete when cut, a hanging record costs one timeout.
@Suite(
    "Faults between aggctl and real WebDAV servers",
    .enabled(if: WebDAVServer.Kind.allCases.allSatisfy { RequiredTool.available($0.tool) }, webDAVServersMissing))
struct FaultEndToEndTests {
    let root = TemporaryDirectory("aggctl-faults")

    func machine(_ name: String, _ extra: [String: String] = [:]) -> [String: String] {
        [
            "HOME": root.file(name), "XDG_STATE_HOME": root.file(name + "/state"), "PATH": "/usr/bin:/bin",
            "AGGCTL_WEBDAV_USER": WebDAVServer.user, "AGGCTL_WEBDAV_PASSWORD": WebDAVServer.password,
        ].merging(extra) { $1 }
    }

    func input(used: Double) -> Data {
        Data(
            #"[{"providerID": "claude", "accountEmail": "you@example.com", "lastUpdated": "2026-11-30T11:50:00Z", "session": {"usedPercent": \#(used)}}]"#
                .utf8)
    }

    /// A fresh store folder on `kind`, reached through a new proxy: (proxy, store URL through it, folder on disk).
    func store(_ kind: WebDAVServer.Kind) throws -> (FaultProxy, String, String) {
        let server = try WebDAVServer.shared(kind)
        let folder = try server.makeFolder()
        try FileManager.default.createDirectory(
            atPath: "\(server.root)/\(folder)/store", withIntermediateDirectories: true)
        chmod("\(server.root)/\(folder)/store", 0o777)
        let proxy = try FaultProxy(upstream: server.origin)
        return (proxy, "\(proxy.origin)/\(folder)/store/", "\(server.root)/\(folder)/store")
    }

    @Test(
        "a MOVE whose answer is lost is checked, not repeated: the record holds what was published",
        arguments: WebDAVServer.Kind.allCases)
    func lostMoveAnswer(kind: WebDAVServer.Kind) throws {
        let (proxy, url, folder) = try store(kind)
        let first = try BinaryRun.run(
            ["publish", "--store", url, "--device-id", "laptop", "--from", "-"], environment: machine("laptop"),
            input: input(used: 10))
        #expect(first.status == 0, "\(first.errors)")
        try proxy.inject("drop-response", method: "MOVE")
        let second = try BinaryRun.run(
            ["publish", "--store", url, "--device-id", "laptop", "--from", "-"], environment: machine("laptop"),
            input: input(used: 55))
        #expect(second.status == 0, "\(kind): \(second.errors) \((try? proxy.requests()) ?? [])")
        let record = try RecordCodec.decode(
            try Data(contentsOf: URL(fileURLWithPath: folder + "/laptop.json")), fileName: "laptop.json")
        #expect(record.snapshot.providers.first?.session?.usedPercent == 55, "\(kind)")
        let moves = try proxy.requests().filter { $0.method == "MOVE" }
        #expect(moves.count == 2, "one MOVE per publish, never a blind repeat: \(moves)")
    }

    @Test("a listing cut short without a length is asked for again, and never taken as the whole store")
    func cutShortListing() throws {
        let (proxy, url, folder) = try store(.apache)
        for device in ["a", "b", "c"] {
            let record = Records.snapshot(
                device, generatedAt: "2026-11-30T11:50:00Z",
                [Records.entry(email: "\(device)@x.test", at: "2026-11-30T11:50:00Z")])
            try Records.json(record).write(to: URL(fileURLWithPath: "\(folder)/\(device).json"))
        }
        func status() throws -> BinaryRun {
            try BinaryRun.run(
                ["status", "--store", url, "--json", "--now", "2026-11-30T12:00:00Z"], environment: machine("reader"))
        }
        // Cut every time: a failure that says so, never a smaller store.
        try proxy.inject("truncate-nolength", method: "PROPFIND", count: 10, parameters: ["bytes": 500])
        let cut = try status()
        #expect(cut.status == 1)
        #expect(cut.errors.contains("the server's listing ended early"), "\(cut.errors)")
        #expect(cut.output == "")
        // Cut short of its announced length (a reset mid-answer), twice: asked again, and whole.
        try proxy.clear()
        try proxy.inject("truncate", method: "PROPFIND", count: 2, parameters: ["bytes": 500])
        try proxy.inject("truncate", method: "GET", path: "b.json", count: 2, parameters: ["bytes": 50])
        let reset = try status()
        #expect(reset.status == 0, "\(reset.errors)")
        let resetReport = try JSONSerialization.jsonObject(with: Data(reset.output.utf8)) as? [String: Any]
        #expect((resetReport?["problems"] as? [Any])?.isEmpty == true, "\(reset.output)")
        #expect((resetReport?["accounts"] as? [Any])?.count == 3)
        // Cut once: the next answer is whole and every record merges.
        try proxy.clear()
        try proxy.inject("truncate-nolength", method: "PROPFIND", count: 1, parameters: ["bytes": 500])
        let once = try status()
        #expect(once.status == 0, "\(once.errors)")
        let report = try JSONSerialization.jsonObject(with: Data(once.output.utf8)) as? [String: Any]
        #expect((report?["accounts"] as? [Any])?.count == 3)
    }

    @Test(
        "a record cut short or timed out is this run's problem only: the next run without faults merges it",
        arguments: [WebDAVServer.Kind.apache, .rclone])
    func passingFailuresNotCached(kind: WebDAVServer.Kind) throws {
        let (proxy, url, folder) = try store(kind)
        for device in ["a", "b", "c"] {
            let record = Records.snapshot(
                device, generatedAt: "2026-11-30T11:50:00Z",
                [Records.entry(email: "\(device)@x.test", at: "2026-11-30T11:50:00Z")])
            try Records.json(record).write(to: URL(fileURLWithPath: "\(folder)/\(device).json"))
        }
        // Older than the parse cache's settle time, so that what is read is kept.
        let past = Date().addingTimeInterval(-60)
        for device in ["a", "b", "c"] {
            try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: "\(folder)/\(device).json")
        }
        func status() throws -> (run: BinaryRun, files: [String], accounts: Int) {
            let run = try BinaryRun.run(
                ["status", "--store", url, "--json", "--now", "2026-11-30T12:00:00Z"],
                environment: machine("reader", ["AGGCTL_HTTP_TIMEOUT": "1"]), timeout: 60)
            let report = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
            let files = (report?["problems"] as? [[String: Any]] ?? []).compactMap { $0["file"] as? String }
            return (run, files.sorted(), (report?["accounts"] as? [Any])?.count ?? -1)
        }
        // Every read of b.json cut short of the length the listing gave, by a proxy that sends no length.
        try proxy.inject("truncate-nolength", method: "GET", path: "b.json", count: 20, parameters: ["bytes": 40])
        try proxy.inject("stall", method: "GET", path: "c.json", count: 1, parameters: ["seconds": 5])
        let faulted = try status()
        #expect(faulted.run.status == 0, "\(faulted.run.errors)")
        #expect(faulted.files == ["b.json", "c.json"], "\(faulted.run.output)")
        #expect(faulted.run.output.contains("bytes listed arrived"), "\(faulted.run.output)")
        try proxy.clear()
        for _ in 0..<2 {
            let clean = try status()
            #expect(clean.files == [], "\(kind): \(clean.run.output)")
            #expect(clean.accounts == 3, "\(kind): \(clean.run.output)")
        }
    }

    @Test("a record that hangs costs one timeout, and a record over the limit is downloaded once")
    func oneTimeoutPerFault() throws {
        let (proxy, url, folder) = try store(.nginx)
        for device in ["good", "slow"] {
            let record = Records.snapshot(
                device, generatedAt: "2026-11-30T11:50:00Z", [Records.entry(at: "2026-11-30T11:50:00Z")])
            try Records.json(record).write(to: URL(fileURLWithPath: "\(folder)/\(device).json"))
        }
        let big = Data(repeating: UInt8(ascii: " "), count: RecordCodec.maximumRecordSize + 1)
        try big.write(to: URL(fileURLWithPath: "\(folder)/big.json"))
        try proxy.inject("stall", method: "GET", path: "slow.json", count: 10, parameters: ["seconds": 30])
        let started = Date()
        let run = try BinaryRun.run(
            ["status", "--store", url, "--json", "--now", "2026-11-30T12:00:00Z"],
            environment: machine("reader", ["AGGCTL_HTTP_TIMEOUT": "1"]), timeout: 60)
        let elapsed = Date().timeIntervalSince(started)
        #expect(run.status == 0, "\(run.errors)")
        #expect(elapsed < 4, "took \(elapsed) s")
        let report = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
        let problems = (report?["problems"] as? [[String: Any]] ?? []).compactMap { $0["file"] as? String }
        #expect(problems.sorted() == ["big.json", "slow.json"], "\(run.output)")
        let gets = try proxy.requests().filter { $0.method == "GET" }.map(\.path)
        #expect(gets.filter { $0.hasSuffix("/slow.json") }.count == 1, "\(gets)")
        #expect(gets.filter { $0.hasSuffix("/big.json") }.count == 1, "\(gets)")
    }

    @Test("a record the last run saw and one listing lacks is listed again before it counts as gone")
    func vanishedRecordListedAgain() throws {
        let (proxy, url, folder) = try store(.apache)
        for device in ["a", "b"] {
            let record = Records.snapshot(
                device, generatedAt: "2026-11-30T11:50:00Z",
                [Records.entry(email: "\(device)@x.test", at: "2026-11-30T11:50:00Z")])
            try Records.json(record).write(to: URL(fileURLWithPath: "\(folder)/\(device).json"))
            // Settled, so that the parse cache remembers them.
            try FileManager.default.setAttributes(
                [.modificationDate: Date().addingTimeInterval(-600)], ofItemAtPath: "\(folder)/\(device).json")
        }
        func accounts() throws -> Int? {
            let run = try BinaryRun.run(
                ["status", "--store", url, "--json", "--now", "2026-11-30T12:00:00Z"], environment: machine("reader"))
            let report = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
            return (report?["accounts"] as? [Any])?.count
        }
        #expect(try accounts() == 2)
        // Mid-replace under a busy writer, three listings in a row lack b.json: the reader looks up to three
        // times more, a moment apart, and still merges both.
        try proxy.inject("hide-entry", method: "PROPFIND", count: 3, parameters: ["entry": "b.json"])
        #expect(try accounts() == 2)
        #expect(try proxy.requests().filter { $0.method == "PROPFIND" }.count == 5)
        // Gone for good: after three looks more, it is gone, and later runs do not look again.
        try FileManager.default.removeItem(atPath: "\(folder)/b.json")
        #expect(try accounts() == 1)
        #expect(try accounts() == 1)
        #expect(try proxy.requests().filter { $0.method == "PROPFIND" }.count == 10)
    }

    @Test("a record replaced moments ago, too young to be cached, is listed again when one listing lacks it")
    func busyRecordListedAgain() throws {
        let (proxy, url, folder) = try store(.apache)
        for device in ["a", "busy"] {
            let record = Records.snapshot(
                device, generatedAt: "2026-11-30T11:50:00Z",
                [Records.entry(email: "\(device)@x.test", at: "2026-11-30T11:50:00Z")])
            // Written just now: a machine that publishes every few seconds never has a settled record.
            try Records.json(record).write(to: URL(fileURLWithPath: "\(folder)/\(device).json"))
        }
        func devices() throws -> [String] {
            let run = try BinaryRun.run(
                ["status", "--store", url, "--json", "--now", "2026-11-30T12:00:00Z"], environment: machine("reader"))
            let report = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
            return ((report?["devices"] as? [[String: Any]]) ?? []).compactMap { $0["deviceID"] as? String }
        }
        #expect(try devices() == ["a", "busy"])
        try proxy.inject("hide-entry", method: "PROPFIND", count: 1, parameters: ["entry": "busy.json"])
        #expect(try devices() == ["a", "busy"])
        #expect(try proxy.requests().filter { $0.method == "PROPFIND" }.count == 3)
    }

    @Test("a webhook whose answer is lost is delivered again with the same id, never under another")
    func webhookLostAnswer() throws {
        let hooks = try LocalServer.sharedHTTPServer()
        let proxy = try FaultProxy(upstream: hooks.origin)
        let path = "/hook-lost-\(UUID().uuidString.prefix(8))"
        try root.write(
            "store/laptop.json",
            Records.json(
                Records.snapshot(
                    "laptop", generatedAt: "2026-11-30T12:00:00Z",
                    [Records.entry(at: "2026-11-30T12:00:00Z", sessionUsed: 100)])))
        try proxy.inject("drop-response", method: "POST", count: 1)
        let run = try BinaryRun.run(
            [
                "check", "--store", root.file("store"), "--now", "2026-11-30T12:01:00Z", "--notify",
                "webhook:\(proxy.origin)\(path)",
            ], environment: machine("watcher"))
        #expect(run.status == 0, "\(run.errors)")
        let posts = try requests(hooks).filter { $0.path == path }
        #expect(posts.count == 2, "the lost one and its retry")
        #expect(Set(posts.compactMap(\.idempotencyKey)).count == 1)
        #expect(posts.first?.idempotencyKey?.hasPrefix("evt-") == true)
    }
}
