import Foundation
import Snapshots
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The product's promise as a person lives it (docs/init.md, docs/alerts.md): a laptop, a desktop and a
/// cloud box, Codex on a personal account everywhere, Claude Code on a work account (laptop, signed in) and
/// a personal one (desktop, logs only). Each machine runs `aggctl init --store S --notify ntfy:URL
/// --write` and then exactly what it scheduled, as cron runs it, through a day driven by `--now`: the
/// phone hears each event once, each desktop hears it, the box (no desktop, no Claude) never fails.
struct ThreeMachinesEndToEndTests {
    let root = TemporaryDirectory("aggctl-three")
    static let missing = CronMachine.missing + DesktopNotificationTests.missing
    static let runs = missing.isEmpty || ProcessInfo.processInfo.environment["CI"] == "true"

    /// The three machines after `init --write`, with the desktops they have.
    struct Setup {
        var machines: [CronMachine]
        var desktops: [String: Desktop]
        var server: LocalServer
        var topic: String
    }

    enum StoreKind: String, CaseIterable { case folder, webDAV }

    func setUp(_ kind: StoreKind, ntfyPath: (String) -> String = { "/ntfy/" + $0 }) throws -> Setup {
        let server = try LocalServer.sharedHTTPServer()
        let topic = "three-\(UUID().uuidString.prefix(8))"
        var store = root.file("store")
        var netrc: String?
        if kind == .webDAV {
            let webDAV = try WebDAVServer.shared(.rclone)
            store = "\(webDAV.origin)/\(try webDAV.makeFolder())/store/"
            netrc = "machine 127.0.0.1 login \(WebDAVServer.user) password \(WebDAVServer.password)\n"
        }
        var machines: [CronMachine] = []
        var desktops: [String: Desktop] = [:]
        for name in ["laptop", "desktop", "box"] {
            var machine = try CronMachine(name, in: root)
            try AgentFiles.codexLogin(home: machine.home, email: "you@example.com")
            try AgentFiles.codexEvent(
                home: machine.home, at: name == "laptop" ? "2026-12-01T08:55:00Z" : "2026-12-01T08:00:00Z",
                sessionUsed: name == "laptop" ? 40 : 10, sessionResets: "2026-12-01T12:30:00Z", weeklyUsed: 20)
            if name == "laptop" {
                try AgentFiles.claude(home: machine.home, email: "work@acme.test", token: "sk-ant-oat01-three-SECRET")
                machine.shell["AGGCTL_CLAUDE_API_URL"] = server.origin + "/real-world/claude-api/fable-scoped-week"
            }
            if name == "desktop" { try AgentFiles.claude(home: machine.home, email: "you@example.com") }
            if name != "box" {
                let desktop = try Desktop(in: root, name: name)
                desktops[name] = desktop
                machine.runtime = desktop.runtime
            }
            if let netrc {
                try AgentFiles.write(machine.home + "/.netrc", netrc)
                chmod(machine.home + "/.netrc", 0o600)
            }
            let initialized = try machine.aggctl([
                "init", "--store", store, "--notify", "ntfy:" + server.origin + ntfyPath(topic), "--write",
            ])
            try #require(initialized.status == 0, "\(name): \(initialized.output)\n\(initialized.errors)")
            machines.append(machine)
        }
        return Setup(machines: machines, desktops: desktops, server: server, topic: topic)
    }

    /// Every machine (but `skipping`) runs its minute: publish, then check, as cron starts them.
    func minute(_ setup: Setup, at now: String, skipping: Set<String> = []) throws {
        for machine in setup.machines where !skipping.contains(machine.name) {
            for job in ["publish", "check"] {
                let run = try machine.run(job, at: now)
                #expect(run.status == 0, "\(machine.name) \(job) at \(now): \(run.errors)")
                // One warning in the whole day: the first publish made the store (docs/init.md).
                let warnings = run.errors.split(separator: "\n").filter {
                    $0.contains("warning") && !$0.contains("created a new store")
                }
                #expect(warnings.isEmpty, "\(machine.name) \(job) at \(now): \(run.errors)")
            }
        }
    }

    /// What the phone was told: the titles ntfy received for the topic, in order.
    func phone(_ setup: Setup) throws -> [String] {
        try requests(setup.server).filter { $0.method == "POST" && $0.path.hasSuffix("/ntfy/" + setup.topic) }
            .compactMap { $0.decoded?["title"] ?? nil }
    }

    func usedUp(_ setup: Setup) throws {
        try AgentFiles.codexEvent(
            home: setup.machines[0].home, at: "2026-12-01T10:58:00Z", sessionUsed: 100,
            sessionResets: "2026-12-01T12:30:00Z", weeklyUsed: 31)
    }

    static let both = ["Codex session depleted", "Codex session restored"]

    @Test(
        "three machines as init scheduled them: the phone hears 'depleted' and the reset's 'restored' once each, every desktop hears both, accounts by email across machines",
        .enabled(if: runs, "needs crontab, unshare -m, dbus and notify-send: \(missing)"),
        arguments: StoreKind.allCases)
    func aDay(_ kind: StoreKind) throws {
        try #require(Self.missing.isEmpty, "missing under CI: \(Self.missing)")
        let setup = try setUp(kind)
        let laptop = try String(contentsOfFile: setup.machines[0].home + "/.config/aggctl/config", encoding: .utf8)
        #expect(laptop.contains("source = codex\nsource = claude\nnotify = desktop\nnotify = ntfy:"), "\(laptop)")
        let box = try String(contentsOfFile: setup.machines[2].home + "/.config/aggctl/config", encoding: .utf8)
        #expect(box.contains("source = codex\nnotify = ntfy:") && !box.contains("claude"), "\(box)")

        try minute(setup, at: "2026-12-01T09:00:00Z")
        try usedUp(setup)
        try minute(setup, at: "2026-12-01T11:00:00Z")
        #expect(try phone(setup) == ["Codex session depleted"])
        try minute(setup, at: "2026-12-01T11:30:00Z")
        // Nobody used Codex since: the reset alone says it is back.
        try minute(setup, at: "2026-12-01T12:31:00Z")
        try minute(setup, at: "2026-12-01T12:40:00Z")
        #expect(try phone(setup) == Self.both)
        #expect(setup.desktops["laptop"]?.titles == Self.both)
        #expect(setup.desktops["desktop"]?.titles == Self.both)

        let status = try setup.machines[2].run("check", at: "2026-12-01T12:41:00Z")
        #expect(status.status == 0)
        let reader = try BinaryRun.run(
            ["status", "--json", "--now", "2026-12-01T12:41:00Z"],
            environment: setup.machines[2].cronEnvironment, executable: CronMachine.binary)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(reader.output.utf8)) as? [String: Any])
        let accounts = (document["accounts"] as? [[String: Any]] ?? []).map {
            "\($0["providerID"] ?? "") \($0["accountEmail"] ?? "") \(($0["seenOn"] as? [String])?.count ?? 0)"
        }
        #expect(
            accounts.sorted() == ["claude work@acme.test 1", "claude you@example.com 1", "codex you@example.com 3"],
            "\(reader.output.prefix(600))")
    }

    /// The laptop's `check` is killed (`kill -9`) after it claimed the event and while its phone message is
    /// on the way (the ntfy server holds the first request): the claim stays, undelivered.
    func laptopKilledMidDelivery(_ kind: StoreKind) throws -> Setup {
        let key = "three-stall-\(UUID().uuidString.prefix(8))"
        let setup = try setUp(kind, ntfyPath: { "/stall/\(key)/1/ntfy/" + $0 })
        try minute(setup, at: "2026-12-01T09:00:00Z")
        try usedUp(setup)
        let laptop = setup.machines[0]
        #expect(try laptop.run("publish", at: "2026-12-01T11:00:00Z").status == 0)
        let check = try laptop.start("check", at: "2026-12-01T11:00:00Z", log: root.file("killed-check.log"))
        var held = false
        for _ in 0..<1500 where !held {
            held = try requests(setup.server).contains { $0.path.contains("/stall/\(key)/") }
            if !held { usleep(20_000) }
        }
        #expect(held, "the laptop's check never reached the phone's server")
        kill(-check.pid, SIGKILL)
        check.waitForExit(timeout: 10)
        try minute(setup, at: "2026-12-01T11:00:00Z", skipping: ["laptop"])
        #expect(try phone(setup).isEmpty, "the others wait for the laptop's claim")
        #expect(setup.desktops["desktop"]?.titles == ["Codex session depleted"], "the desktop's own hears it at once")
        return setup
    }

    @Test(
        "kill -9 between claim and delivery: the laptop's next run delivers the event, once",
        .enabled(if: runs, "needs crontab, unshare -m, dbus and notify-send: \(missing)"))
    func killedAndBack() throws {
        try #require(Self.missing.isEmpty, "missing under CI: \(Self.missing)")
        let setup = try laptopKilledMidDelivery(.folder)
        try minute(setup, at: "2026-12-01T11:01:00Z")
        try minute(setup, at: "2026-12-01T11:02:00Z")
        #expect(try phone(setup) == ["Codex session depleted"])
        #expect(setup.desktops["laptop"]?.titles == ["Codex session depleted"], "shown before the kill, not again")
        try minute(setup, at: "2026-12-01T12:31:00Z")
        #expect(try phone(setup) == Self.both)
    }

    @Test(
        "kill -9 and the laptop never runs again: after ten minutes another machine takes the claim over and delivers, once",
        .enabled(if: runs, "needs crontab, unshare -m, dbus and notify-send: \(missing)"))
    func killedForGood() throws {
        try #require(Self.missing.isEmpty, "missing under CI: \(Self.missing)")
        let setup = try laptopKilledMidDelivery(.webDAV)
        try minute(setup, at: "2026-12-01T11:05:00Z", skipping: ["laptop"])
        #expect(try phone(setup).isEmpty, "a claim five minutes old is waited for")
        try minute(setup, at: "2026-12-01T11:11:00Z", skipping: ["laptop"])
        try minute(setup, at: "2026-12-01T11:12:00Z", skipping: ["laptop"])
        #expect(try phone(setup) == ["Codex session depleted"])
        try minute(setup, at: "2026-12-01T12:31:00Z", skipping: ["laptop"])
        #expect(try phone(setup) == Self.both)
    }
}
