import Foundation
import Snapshots
import TestSupport
import Testing

/// `aggctl init` through the release binary, with the real crontab (docs/init.md).
struct InitEndToEndTests {
    let root = TemporaryDirectory("aggctl-init")
    static let secret = "sk-ant-oat01-INIT-SECRET-never-shown"

    /// A laptop with Codex and Claude Code (signed in), no Gemini, a crontab of the person's own.
    func laptop() throws -> CronMachine {
        var machine = try CronMachine("laptop", in: root)
        try AgentFiles.codexLogin(home: machine.home, email: "you@example.com")
        try AgentFiles.codexEvent(
            home: machine.home, at: "2026-12-01T08:55:00Z", sessionUsed: 40, sessionResets: "2026-12-01T12:30:00Z",
            weeklyUsed: 20)
        try AgentFiles.claude(home: machine.home, email: "work@acme.test", token: Self.secret)
        let server = try LocalServer.sharedHTTPServer()
        machine.shell = ["AGGCTL_CLAUDE_API_URL": server.origin + "/real-world/claude-api/fable-scoped-week"]
        let user = String(cString: getpwuid(getuid()).pointee.pw_name)
        try root.write("laptop-cron/" + user, "MAILTO=me\n0 3 * * * backup\n")
        return machine
    }

    @Test(
        "init finds the agents and prints what it would do; --write installs it beside the person's own lines, the same again; the scheduled lines publish and check as cron runs them",
        .enabled(if: CronMachine.runs, "needs crontab and unshare -m: \(CronMachine.missing)"))
    func initOnALaptop() throws {
        try #require(CronMachine.missing.isEmpty, "missing under CI: \(CronMachine.missing)")
        let machine = try laptop()
        let store = root.file("store")
        let look = try machine.aggctl(["init", "--store", store])
        #expect(look.status == 0, "\(look.errors)")
        for line in [
            "codex        yes    Codex logs in ~/.codex/sessions",
            "claude       yes    Claude Code logs in ~/.claude/projects; signed in, so its usage answer too",
            "gemini       no     no ~/.gemini/tmp", "source = codex", "source = claude", "* * * * * ",
            "Nothing written.",
        ] {
            #expect(look.output.contains(line), "\(line)\n\(look.output)")
        }
        #expect(!FileManager.default.fileExists(atPath: machine.home + "/.config/aggctl/config"))
        #expect(machine.crontab == "MAILTO=me\n0 3 * * * backup\n")

        let write = try machine.aggctl(["init", "--store", store, "--write"])
        #expect(write.status == 0, "\(write.errors)")
        #expect(write.output.contains("Installed the schedule in your crontab."))
        let config = try String(contentsOfFile: machine.home + "/.config/aggctl/config", encoding: .utf8)
        #expect(config.hasSuffix("store = \(store)\nsource = codex\nsource = claude\n"), "\(config)")
        #expect(machine.crontab.contains("MAILTO=me\n0 3 * * * backup\n"), "the person's lines kept")
        #expect(machine.scheduled.count == 2, "publish and check: \(machine.crontab)")
        // The usage answer's address is this shell's: the scheduled run is given it, never a secret.
        #expect(try machine.command("publish").hasPrefix("AGGCTL_CLAUDE_API_URL="))
        let again = try machine.aggctl(["init", "--store", store, "--write"])
        #expect(again.output.contains("The schedule is as it was."), "\(again.output)")
        #expect(again.output.contains("is as it was."))
        #expect(machine.scheduled.count == 2)
        // A line of the old examples, written by hand: it would publish a second time, and init says so.
        let user = String(cString: getpwuid(getuid()).pointee.pw_name)
        try root.write(
            "laptop-cron/" + user, machine.crontab + "* * * * * $HOME/.local/bin/aggctl publish --source codex\n")
        let warned = try machine.aggctl(["init", "--store", store, "--write"])
        #expect(warned.errors.contains("your crontab also runs aggctl on line(s) "), "\(warned.errors)")
        for text in [look.output, look.errors, write.output, write.errors, machine.crontab, config] {
            #expect(!text.contains("INIT-SECRET"))
        }

        let publish = try machine.run("publish", at: "2026-12-01T09:00:00Z")
        #expect(publish.status == 0, "\(publish.errors)")
        #expect(publish.errors.contains("created a new store"))
        let status = try BinaryRun.run(
            ["status", "--store", store, "--json", "--now", "2026-12-01T09:00:30Z"],
            environment: ["HOME": root.file("reader"), "PATH": "/usr/bin:/bin"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
        let accounts = (document["accounts"] as? [[String: Any]] ?? []).map {
            "\($0["providerID"] ?? "") \($0["accountEmail"] ?? "") \(($0["session"] as? [String: Any])?["usedPercent"] ?? "-")"
        }
        #expect(accounts.sorted() == ["claude work@acme.test 11", "codex you@example.com 40"], "\(status.output)")
        let check = try machine.run("check", at: "2026-12-01T09:00:40Z")
        #expect(check.status == 0, "\(check.errors)")
    }

    @Test(
        "with neither systemd nor cron, init prints the lines to run; --write writes the config and says what is missing"
    )
    func noScheduler() throws {
        let home = root.file("box")
        try AgentFiles.codexLogin(home: home, email: "you@example.com")
        try AgentFiles.codexEvent(
            home: home, at: "2026-12-01T08:55:00Z", sessionUsed: 40, sessionResets: "2026-12-01T12:30:00Z",
            weeklyUsed: 20)
        let environment = ["HOME": home, "PATH": root.file("empty-path")]
        let look = try BinaryRun.run(
            ["init", "--store", root.file("store")], environment: environment, executable: CronMachine.binary)
        #expect(look.status == 0)
        #expect(look.output.contains("no systemd user manager answers and no crontab is installed here"))
        let binary = URL(fileURLWithPath: CronMachine.binary).resolvingSymlinksInPath().path
        #expect(look.output.contains("* * * * * \(binary) publish"), "\(look.output)")
        // The store from the environment, as every command takes it (this run crashed on it once).
        let fromEnvironment = try BinaryRun.run(
            ["init"], environment: environment.merging(["AGGCTL_STORE": root.file("store")]) { $1 },
            executable: CronMachine.binary)
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.errors)")
        #expect(fromEnvironment.output.contains("store = \(root.file("store"))"))
        let write = try BinaryRun.run(
            ["init", "--store", root.file("store"), "--write"], environment: environment, executable: CronMachine.binary
        )
        #expect(write.status == 1)
        #expect(write.errors.contains("no scheduler was found: install cron"), "\(write.errors)")
        #expect(FileManager.default.fileExists(atPath: home + "/.config/aggctl/config"))
    }
}
