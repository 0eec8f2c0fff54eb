import Foundation
import Snapshots
import TestSupport
import Testing

/// Three machines run `check` on one folder store, each with its own state, a phone on ntfy and stdout:
/// the phone hears of each event once, each machine's own backend on each machine (docs/alerts.md, "Once per
/// person"); a claim left undelivered is delivered by its machine's next run, or taken over.
struct OncePerPersonEndToEndTests {
    let root = TemporaryDirectory("aggctl-once")
    static let machines = ["laptop", "desktop", "box"]
    /// What ships: the synced folder is found through a link, as the release binary's file calls see it.
    static let binary = ReleaseBuild.available ? ReleaseBuild.binary : BinaryRun.binary

    func environment(_ machine: String) -> [String: String] {
        ["HOME": root.file(machine), "XDG_STATE_HOME": root.file(machine + "/state"), "PATH": "/usr/bin:/bin"]
    }

    func publish(_ at: String, used: Double) throws {
        let reset = Records.sessionReset(after: at)
        let entry = Records.entry(email: "work@example.com", at: at, sessionUsed: used, resetsAt: reset)
        try root.write("store/laptop.json", Records.json(Records.snapshot("laptop", generatedAt: at, [entry])))
    }

    func check(_ machine: String, _ now: String, ntfy: String) throws -> BinaryRun {
        try BinaryRun.run(
            ["check", "--store", root.file("store"), "--now", now, "--notify", "ntfy:" + ntfy, "--notify", "stdout"],
            environment: environment(machine), executable: Self.binary)
    }

    func posts(_ server: LocalServer, _ topic: String) throws -> [String] {
        try requests(server).filter { $0.method == "POST" && $0.path.hasSuffix("/ntfy/" + topic) }
            .compactMap { $0.decoded?["title"] ?? nil }
    }

    /// Every machine checks while the session stands at 40 %, then it is used up and every machine checks
    /// again: each one's own backend (stdout) hears it.
    func runsOut(ntfy: String) throws {
        for machine in Self.machines { #expect(try check(machine, "2026-11-30T12:00:30Z", ntfy: ntfy).status == 0) }
        try publish("2026-11-30T12:10:00Z", used: 100)
        for machine in Self.machines {
            let run = try check(machine, "2026-11-30T12:10:30Z", ntfy: ntfy)
            #expect(run.status == 0, "\(machine): \(run.errors)")
            #expect(run.output.contains(#""kind":"depleted""#), "\(machine)'s own backend hears it")
        }
    }

    @Test("three machines, one store: the phone hears 'depleted' and the reset's 'restored' once each; stdout on each")
    func threeMachines() throws {
        let server = try LocalServer.sharedHTTPServer()
        let topic = "once-\(UUID().uuidString.prefix(8))"
        let ntfy = server.origin + "/ntfy/" + topic
        try publish("2026-11-30T12:00:00Z", used: 40)
        try runsOut(ntfy: ntfy)
        // No newer figures: the reset alone says it is back.
        for machine in Self.machines {
            let run = try check(machine, "2026-11-30T15:00:30Z", ntfy: ntfy)
            #expect(run.status == 0, "\(machine): \(run.errors)")
            #expect(run.output.contains(#""kind":"restored""#), "\(machine)")
        }
        #expect(try posts(server, topic) == ["Claude session depleted", "Claude session restored"])
        let claims = try FileManager.default.contentsOfDirectory(atPath: root.file("store/alerts"))
        #expect(claims.filter { $0.hasSuffix(".delivered") }.count == 2, "\(claims)")
        let status = try BinaryRun.run(
            ["status", "--store", root.file("store"), "--json", "--now", "2026-11-30T15:01:00Z"],
            environment: environment("laptop"))
        #expect(!status.errors.contains("alerts"), "the claims are no records: \(status.errors)")
    }

    /// The machines have seen the account; it runs out, and the laptop claims the event but cannot deliver
    /// it (the first four requests to its ntfy topic fail: what a crash between claim and delivery leaves).
    /// The server, the topic and its URL.
    func laptopClaimsAndFails() throws -> (server: LocalServer, topic: String, ntfy: String) {
        let server = try LocalServer.sharedHTTPServer()
        let topic = "once-\(UUID().uuidString.prefix(8))"
        let flaky = server.origin + "/flaky/\(topic)/4/ntfy/" + topic
        try publish("2026-11-30T12:00:00Z", used: 40)
        for machine in Self.machines { _ = try check(machine, "2026-11-30T12:00:30Z", ntfy: flaky) }
        try publish("2026-11-30T12:10:00Z", used: 100)
        #expect(try check("laptop", "2026-11-30T12:10:30Z", ntfy: flaky).status == 1)
        return (server, topic, flaky)
    }

    @Test("a claim whose delivery failed is delivered by its machine's next run; the others wait meanwhile")
    func claimantComesBack() throws {
        let (server, topic, ntfy) = try laptopClaimsAndFails()
        let waiting = try check("desktop", "2026-11-30T12:11:00Z", ntfy: ntfy)
        #expect(waiting.status == 0, "waiting on the laptop's claim is no failure: \(waiting.errors)")
        #expect(try posts(server, topic).isEmpty)
        #expect(try check("laptop", "2026-11-30T12:12:00Z", ntfy: ntfy).status == 0)
        #expect(try check("desktop", "2026-11-30T12:13:00Z", ntfy: ntfy).status == 0)
        #expect(try posts(server, topic) == ["Claude session depleted"])
    }

    @Test("a claim left unmarked for ten minutes is taken over by another machine, once")
    func takenOver() throws {
        let (server, topic, ntfy) = try laptopClaimsAndFails()
        #expect(try check("desktop", "2026-11-30T12:15:00Z", ntfy: ntfy).status == 0)
        #expect(try posts(server, topic).isEmpty, "within ten minutes the laptop's claim stands")
        #expect(try check("desktop", "2026-11-30T12:21:00Z", ntfy: ntfy).status == 0)
        #expect(try check("box", "2026-11-30T12:21:30Z", ntfy: ntfy).status == 0)
        #expect(try posts(server, topic) == ["Claude session depleted"])
        // The laptop comes back after all: the event is marked delivered, it sends nothing more.
        #expect(try check("laptop", "2026-11-30T12:30:00Z", ntfy: ntfy).status == 0)
        #expect(try posts(server, topic) == ["Claude session depleted"])
    }

    @Test("a synced folder (Syncthing's .stfolder): the machine the rule picks sends, once; the others do not")
    func syncedFolder() throws {
        let server = try LocalServer.sharedHTTPServer()
        let topic = "synced-\(UUID().uuidString.prefix(8))"
        let ntfy = server.origin + "/ntfy/" + topic
        try root.write("sync/.stfolder/.keep", "")
        try publish("2026-11-30T12:00:00Z", used: 40)
        // The store inside the synced folder: a claim made on one machine's copy proves nothing to another.
        try FileManager.default.moveItem(atPath: root.file("store"), toPath: root.file("sync/store"))
        try FileManager.default.createSymbolicLink(
            atPath: root.file("store"), withDestinationPath: root.file("sync/store"))
        try runsOut(ntfy: ntfy)
        #expect(try posts(server, topic) == ["Claude session depleted"])
        let senders = try FileManager.default.contentsOfDirectory(atPath: root.file("sync/store/alerts"))
            .filter { $0.hasPrefix("sender-") }
        #expect(senders.count == 3, "\(senders)")
    }

    @Test(
        "three machines on a WebDAV store (rclone and nginx ignore If-None-Match): the phone hears each event once",
        .enabled(if: WebDAVServer.Kind.allCases.allSatisfy { RequiredTool.available($0.tool) }),
        arguments: WebDAVServer.Kind.allCases)
    func webDAV(kind: WebDAVServer.Kind) throws {
        let http = try LocalServer.sharedHTTPServer()
        let dav = try WebDAVServer.shared(kind)
        let store = "\(dav.origin)/\(try dav.makeFolder())/store/"
        let topic = "dav-\(UUID().uuidString.prefix(8))"
        let credentials = [
            "AGGCTL_WEBDAV_USER": WebDAVServer.user, "AGGCTL_WEBDAV_PASSWORD": WebDAVServer.password,
        ]
        func publish(_ at: String, used: Double) throws {
            let input =
                #"[{"providerID": "claude", "accountEmail": "work@example.com", "lastUpdated": "\#(at)", "session": {"usedPercent": \#(used), "windowMinutes": 300, "resetsAt": "\#(Records.sessionReset(after: at))"}}]"#
            let run = try BinaryRun.run(
                ["publish", "--store", store, "--device-id", "laptop", "--from", "-", "--now", at],
                environment: environment("laptop").merging(credentials) { $1 }, input: Data(input.utf8))
            #expect(run.status == 0, "\(run.errors)")
        }
        func check(_ machine: String, _ now: String) throws -> BinaryRun {
            try BinaryRun.run(
                ["check", "--store", store, "--now", now, "--notify", "ntfy:\(http.origin)/ntfy/\(topic)"],
                environment: environment(machine).merging(credentials) { $1 })
        }
        try publish("2026-11-30T12:00:00Z", used: 40)
        for machine in Self.machines { #expect(try check(machine, "2026-11-30T12:00:30Z").status == 0) }
        try publish("2026-11-30T12:10:00Z", used: 100)
        for machine in Self.machines {
            let run = try check(machine, "2026-11-30T12:10:30Z")
            #expect(run.status == 0, "\(machine): \(run.errors)")
        }
        #expect(try posts(http, topic) == ["Claude session depleted"])
    }
}
