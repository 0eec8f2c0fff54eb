import Foundation
import Snapshots
import TestSupport
import Testing

@testable import AggctlCLI

/// Runs `aggctl` in-process with captured output, a fixed clock and a literal environment.
struct Harness {
    let home = TemporaryDirectory("aggctl-home")
    var environment: [String: String]
    var stdin = Data()
    var now = Records.date("2026-11-30T12:00:00Z")

    init() {
        environment = ["HOME": home.path, "XDG_STATE_HOME": home.file("state"), "XDG_CONFIG_HOME": home.file("config")]
    }

    struct Outcome {
        var status: AggctlCLI.ExitStatus
        var output: String
        var errors: String
    }

    func run(_ arguments: String...) -> Outcome {
        run(arguments)
    }

    func run(_ arguments: [String]) -> Outcome {
        let output = BufferSink()
        let errors = BufferSink()
        let input = stdin
        let fixedNow = now
        let context = RunContext(
            console: Console(output: output, errors: errors, usesColor: false, errorsAreTerminal: false),
            environment: environment, clock: { fixedNow }, readStandardInput: { input }, hostName: { "test-host.local" }
        )
        let status = Aggctl.run(arguments, context: context)
        return Outcome(status: status, output: output.text, errors: errors.text)
    }
}

func jsonObject(_ text: String) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
}

struct CommandTests {
    let examples = Repository.path("Examples/store")

    @Test("status --json on the example store merges three machines exactly as the command-line contract shapes it")
    func statusJSON() throws {
        let outcome = Harness().run("status", "--store", examples, "--json", "--now", "2026-11-30T12:00:00Z")
        #expect(outcome.status == .success)
        #expect(outcome.errors == "")
        let report = try jsonObject(outcome.output)
        #expect(Set(report.keys) == ["now", "accounts", "devices", "problems"])
        #expect(report["now"] as? String == "2026-11-30T12:00:00Z")
        let accounts = try #require(report["accounts"] as? [[String: Any]])
        #expect(
            accounts.map { "\($0["providerID"]!) \($0["accountEmail"]!)" } == [
                "claude work@acme.test", "claude you@example.com", "codex you@example.com", "gemini you@example.com",
            ])
        let claude = accounts[1]
        #expect(
            Set(claude.keys) == [
                "providerID", "accountEmail", "plan", "session", "weekly", "deviceID", "deviceName", "lastUpdated",
                "seenOn", "limits", "modelWeekly", "tokens", "costUSD", "perDevice", "stale", "clockSkew", "error",
                "errorDeviceID", "blocked", "availableAt", "tightest",
            ])
        #expect(claude["deviceID"] as? String == "studio-mac-1a2b3c4d")
        #expect(claude["seenOn"] as? [String] == ["laptop-9f8e7d6c", "studio-mac-1a2b3c4d"])
        let session = try #require(claude["session"] as? [String: Any])
        #expect(session["remainingPercent"] as? Double == 63)
        #expect(session["level"] as? String == "ok")
        #expect(session["resetsAt"] as? String == "2026-11-30T14:10:00Z")
        #expect((claude["tokens"] as? [String: Any])?["today"] as? Int == 7_433_012 + 1_302_114)
        #expect((claude["costUSD"] as? [String: Any])?["today"] as? Double == 22.75)
        #expect((claude["perDevice"] as? [[String: Any]])?.count == 2)
        #expect(claude["error"] is NSNull)
        let gemini = accounts[3]
        #expect(gemini["stale"] as? Bool == true)
        #expect(gemini["weekly"] is NSNull)
        #expect(gemini["tokens"] is NSNull)
        let devices = try #require(report["devices"] as? [[String: Any]])
        #expect(
            devices.map { $0["deviceID"] as? String } == [
                "cloud-box-0c0ffee0", "laptop-9f8e7d6c", "studio-mac-1a2b3c4d",
            ])
        #expect(devices.map { $0["stale"] as? Bool } == [true, false, false])
        #expect(
            Set(devices[0].keys) == ["deviceID", "deviceName", "generatedAt", "appVersion", "providerCount", "stale"])
    }

    @Test("the status table shows each account, how much is left, and from where")
    func statusTable() {
        let outcome = Harness().run("status", "--store", examples, "--now", "2026-11-30T12:00:00Z")
        #expect(outcome.status == .success)
        let lines = outcome.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 5)
        #expect(lines[0].hasPrefix("PROVIDER  ACCOUNT"))
        #expect(lines[2].contains("Claude") && lines[2].contains("63% left") && lines[2].contains("studio-mac, 2m ago"))
        #expect(lines[3].contains("Codex") && lines[3].contains("depleted"))
        #expect(lines[4].contains("Gemini") && lines[4].hasSuffix("stale"))
        #expect(!outcome.output.contains("\u{1B}["))
    }

    @Test("the store can come from AGGCTL_STORE or the config file, and the flag wins")
    func storeSettings() throws {
        var harness = Harness()
        harness.environment["AGGCTL_STORE"] = examples
        #expect(harness.run("devices", "--json").status == .success)
        harness.environment["AGGCTL_STORE"] = nil
        try harness.home.write("config/aggctl/config", "# mine\nstore = \(examples)\n")
        let fromConfig = harness.run("devices", "--json", "--now", "2026-11-30T12:00:00Z")
        #expect(fromConfig.status == .success)
        #expect(try (jsonObject(fromConfig.output)["devices"] as? [Any])?.count == 3)
        let flagWins = harness.run("devices", "--store", harness.home.file("nowhere"))
        #expect(flagWins.status == .failure)
        try harness.home.write("config/aggctl/config", "colour = always\n")
        let badConfig = harness.run("devices")
        #expect(badConfig.status == .usage)
        #expect(badConfig.errors.contains("line 1: unknown key 'colour'"))
    }

    @Test(
        "usage errors exit 2 with one line naming the flag",
        arguments: [
            (["frobnicate"], "unknown command 'frobnicate'"),
            (["status", "--store", "/x", "--bogus"], "unknown flag '--bogus' for 'status'"),
            (["stauts"], "unknown command 'stauts'; did you mean 'status'?"),
            (["status", "--stor", "/x"], "unknown flag '--stor' for 'status'; did you mean '--store'?"),
            (
                ["check", "--store", "/x", "--notfy", "stdout"],
                "unknown flag '--notfy' for 'check'; did you mean '--notify'?"
            ),
            (["status", "--store", "/x", "--now", "yesterday"], "--now: 'yesterday' is not a date"),
            (["status", "--store", "/x", "--stale-after", "-5"], "--stale-after: '-5' is not a duration"),
            (["status"], "missing --store S"),
            (["status", "--store", "ftp://host/x"], "--store: 'ftp://host/x' has the unsupported scheme 'ftp'"),
            (["publish", "--store", "/x"], "publish needs --from FILE ('-' for stdin) or --source NAME[:PATH]"),
            (
                ["publish", "--store", "/x", "--source", "cursor"],
                "--source: 'cursor' is not a collector; available: codex, claude, gemini, opencode, codex-api, claude-api, copilot-api"
            ),
            (
                ["publish", "--store", "/x", "--from", "a", "--device-id", "../up"],
                "--device-id: '../up' is not a valid device id"
            ),
        ])
    func usageErrors(arguments: [String], message: String) {
        let outcome = Harness().run(arguments)
        #expect(outcome.status == .usage)
        #expect(outcome.output == "")
        #expect(outcome.errors.hasPrefix("aggctl: error: \(message)"))
        #expect(outcome.errors.filter { $0 == "\n" }.count == 1)
    }

    @Test("a missing store exits 1 and says so")
    func missingStore() {
        let harness = Harness()
        let outcome = harness.run("status", "--store", harness.home.file("nowhere"))
        #expect(outcome.status == .failure)
        #expect(outcome.errors == "aggctl: error: store '\(harness.home.file("nowhere"))' does not exist\n")
    }

    @Test("--version, --help and every command's --help")
    func helpAndVersion() {
        let harness = Harness()
        #expect(harness.run("--version").output == "aggctl \(Aggctl.version)\n")
        #expect(harness.run("--help").output.contains("publish"))
        for command in Aggctl.commands {
            let outcome = harness.run(command.name, "--help")
            #expect(outcome.status == .success)
            #expect(outcome.output.hasPrefix("usage: aggctl \(command.name)"))
        }
        #expect(harness.run().status == .usage)
    }

    @Test("a WebDAV store is refused clearly, without echoing a password")
    func webDAVNotYet() {
        let outcome = Harness().run("status", "--store", "https://me:hunter2@dav.example/agg/")
        #expect(outcome.status == .failure)
        #expect(!outcome.errors.contains("hunter2"))
        #expect(outcome.errors.contains("https://dav.example/agg/"))
    }

    @Test("the order files were written in never changes status --json")
    func fileOrderIndependence() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: examples).sorted()
        var generator = SystemRandomNumberGenerator()
        var outputs: Set<String> = []
        for _ in 0..<6 {
            let harness = Harness()
            for name in files.shuffled(using: &generator) {
                try harness.home.write("store/" + name, Data(contentsOf: URL(fileURLWithPath: examples + "/" + name)))
            }
            outputs.insert(
                harness.run("status", "--store", harness.home.file("store"), "--json", "--now", "2026-11-30T12:00:00Z")
                    .output)
        }
        #expect(outputs.count == 1)
    }

    @Test("a second status reads unchanged records from the parse cache, and a damaged cache changes nothing")
    func parseCacheIsInvisible() throws {
        let harness = Harness()
        let files = try FileManager.default.contentsOfDirectory(atPath: examples)
        for name in files {
            let path = try harness.home.write(
                "store/" + name, Data(contentsOf: URL(fileURLWithPath: examples + "/" + name)))
            // Old enough to be trusted: the cache leaves out files changed in the last seconds.
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: path)
        }
        let arguments = ["status", "--store", harness.home.file("store"), "--json", "--now", "2026-11-30T12:00:00Z"]
        let first = harness.run(arguments)
        // The first run keeps the parse cache; the second, finding the records unchanged, the merge memo.
        #expect(
            harness.home.entries("state/aggctl/cache").map { ($0 as NSString).pathExtension } == ["cache", "newest"])
        #expect(harness.run(arguments).output == first.output)
        let cacheFiles = harness.home.entries("state/aggctl/cache")
        #expect(cacheFiles.map { ($0 as NSString).pathExtension } == ["cache", "merge", "newest"])
        for file in cacheFiles { try harness.home.write("state/aggctl/cache/" + file, "damaged") }
        let afterDamage = harness.run(arguments)
        #expect(afterDamage.output == first.output)
        #expect(afterDamage.errors.isEmpty)
    }

    @Test("with caches, every run reports exactly what a run without them reports")
    func cachesNeverChangeResults() throws {
        let cached = Harness()
        let store = cached.home.file("store")
        func publish(_ id: String, at lastUpdated: String, used: Double, minutesAgo: Double = 60) throws {
            let snapshot = Records.snapshot(
                id, generatedAt: "2026-11-30T11:00:00Z",
                [Records.entry(at: lastUpdated, sessionUsed: used, tokensToday: Int(used))])
            let path = try cached.home.write("store/\(id).json", Records.json(snapshot))
            // Old enough to be trusted by the caches (they leave out files changed in the last seconds).
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: -minutesAgo * 60)], ofItemAtPath: path)
        }
        try publish("laptop", at: "2026-11-30T11:50:00Z", used: 30)
        try publish("desktop", at: "2026-11-30T11:40:00Z", used: 60)
        // A machine whose clock runs 20 minutes fast: skewed at 12:00, no longer at 12:30.
        try publish("fast-clock", at: "2026-11-30T12:20:00Z", used: 99)

        let steps: [(String, () throws -> Void)] = [
            ("first run", {}),
            ("nothing changed", {}),
            ("a record changed", { try publish("laptop", at: "2026-11-30T11:55:00Z", used: 35, minutesAgo: 30) }),
            ("nothing changed again", {}),
            ("a record removed", { try FileManager.default.removeItem(atPath: store + "/desktop.json") }),
            ("a broken record added", { try cached.home.write("store/broken.json", "{") }),
        ]
        for (name, change) in steps {
            try change()
            for now in ["2026-11-30T12:00:00Z", "2026-11-30T12:30:00Z", "2026-11-30T14:00:00Z"] {
                for staleAfter in ["3600", "60"] {
                    let arguments = ["status", "--store", store, "--json", "--now", now, "--stale-after", staleAfter]
                    let fresh = Harness()
                    let withCaches = cached.run(arguments)
                    let withoutCaches = fresh.run(arguments)
                    #expect(withCaches.status == .success)
                    #expect(withCaches.output == withoutCaches.output, "\(name), now \(now), stale after \(staleAfter)")
                }
            }
        }
    }

    @Test("a bad AGGCTL_HTTP_TIMEOUT is a usage error naming the variable")
    func badTimeout() {
        var harness = Harness()
        harness.environment["AGGCTL_HTTP_TIMEOUT"] = "soon"
        let outcome = harness.run("status", "--store", "http://127.0.0.1:1/store/")
        #expect(outcome.status == .usage)
        #expect(
            outcome.errors.contains(
                "AGGCTL_HTTP_TIMEOUT: 'soon' is not a number of seconds; expected a number such as 30"))
    }

    @Test("status --format line and waybar: each account's tightest window, filters by provider and account")
    func statusBar() throws {
        let line = Harness().run("status", "--store", examples, "--format", "line", "--now", "2026-11-30T12:00:00Z")
        #expect(line.status == .success)
        // Claude (you)'s Opus week (19 % left) stops one model, not the account; Gemini's session reset at
        // 08:00, so its figures of 06:11 are due, and old.
        #expect(line.output == "Claude (work) 8% · Claude (you) 40% · Codex depleted 1h15m · Gemini due (stale)\n")
        let filtered = Harness().run(
            "status", "--store", examples, "--format", "line", "--provider", "Codex", "--now", "2026-11-30T12:00:00Z")
        #expect(filtered.output == "Codex depleted 1h15m\n")
        let account = Harness().run(
            "status", "--store", examples, "--format", "line", "--provider", "claude", "--account", "Work@Acme.test",
            "--now", "2026-11-30T12:00:00Z")
        #expect(account.output == "Claude 8%\n")
        let waybar = Harness().run("status", "--store", examples, "--format", "waybar", "--now", "2026-11-30T12:00:00Z")
        let module = try jsonObject(waybar.output)
        #expect(module["class"] as? String == "depleted")
        #expect(module["percentage"] as? Int == 0)
        #expect((module["tooltip"] as? String)?.split(separator: "\n").count == 4)
        // An i3bar block (i3blocks' format=json, swaybar): the same line, each figure alone for a narrow
        // bar, red and urgent while Codex is used up.
        let i3bar = Harness().run("status", "--store", examples, "--format", "i3bar", "--now", "2026-11-30T12:00:00Z")
        let block = try jsonObject(i3bar.output)
        #expect(
            block["full_text"] as? String
                == "Claude (work) 8% · Claude (you) 40% · Codex depleted 1h15m · Gemini due (stale)")
        #expect(block["short_text"] as? String == "8% 40% depleted 1h15m due")
        #expect(block["color"] as? String == "#FF0000" && block["urgent"] as? Bool == true)
        let calm = Harness().run(
            "status", "--store", examples, "--format", "i3bar", "--provider", "claude", "--account", "you@example.com",
            "--now", "2026-11-30T12:00:00Z")
        let quiet = try jsonObject(calm.output)
        #expect(quiet["color"] == nil && quiet["urgent"] as? Bool == false)
        let both = Harness().run("status", "--store", examples, "--json", "--format", "waybar")
        #expect(both.status == .usage)
        #expect(both.errors.contains("--json and --format waybar ask for two formats"))
    }

    @Test("status bars escape record text for their medium: Pango entities for waybar, # doubled for tmux")
    func statusBarEscapes() throws {
        let root = TemporaryDirectory("aggctl-bars")
        let entries = ["a&b<i>#[fg=red]@x.test", "c@x.test"].map {
            Records.entry(email: $0, at: "2026-11-30T11:00:00Z", sessionUsed: 40)
        }
        try root.write(
            "store/box.json", Records.json(Records.snapshot("box", generatedAt: "2026-11-30T11:00:00Z", entries)))
        let arguments = ["status", "--store", root.file("store"), "--now", "2026-11-30T12:00:00Z", "--format"]
        let tmux = Harness().run(arguments + ["tmux"])
        #expect(tmux.output == "Claude (a&b<i>##[fg=red]) 60% · Claude (c) 60%\n")
        let waybar = try jsonObject(Harness().run(arguments + ["waybar"]).output)
        let text = try #require(waybar["text"] as? String)
        #expect(text == "Claude (a&amp;b&lt;i&gt;#[fg=red]) 60% · Claude (c) 60%")
        let tooltip = try #require(waybar["tooltip"] as? String)
        #expect(!tooltip.contains("<") && !tooltip.contains("&b") && tooltip.contains("&lt;i&gt;"))
    }

    @Test("a record with megabytes of e-mail, plan and name takes a bounded line in every output; --json has it whole")
    func hugeFieldsCut() throws {
        let root = TemporaryDirectory("aggctl-huge")
        let huge = String(repeating: "x", count: 1 << 20)
        var entry = Records.entry(email: huge + "@x.test", at: "2026-11-30T11:00:00Z", sessionUsed: 40)
        entry.plan = huge
        var record = Records.snapshot("box", generatedAt: "2026-11-30T11:00:00Z", [entry])
        record.deviceName = huge
        try root.write("store/box.json", Records.json(record))
        let arguments = ["--store", root.file("store"), "--now", "2026-11-30T12:00:00Z"]
        for extra in [
            ["status"], ["status", "--format", "line"], ["status", "--format", "tmux"],
            ["status", "--format", "waybar"], ["devices"],
        ] {
            let run = Harness().run(extra + arguments)
            #expect(run.status == .success, "\(extra)")
            #expect(run.output.utf8.count < 4096, "\(extra): \(run.output.utf8.count) bytes")
            // A line names a lone account by its provider only; the others show the cut field.
            if !["line", "tmux"].contains(extra.last) { #expect(run.output.contains("..."), "\(extra) says it cut") }
        }
        let json = Harness().run(["status", "--json"] + arguments)
        #expect(json.output.contains(huge + "@x.test"))
    }

    @Test("devices --forget removes that device's record and says so; an unknown one removes nothing")
    func forgetDevice() throws {
        let harness = Harness()
        let store = harness.home.file("store")
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: examples) {
            try FileManager.default.copyItem(atPath: examples + "/" + name, toPath: store + "/" + name)
        }
        let removed = harness.run("devices", "--store", store, "--forget", "cloud-box-0c0ffee0")
        #expect(removed.status == .success)
        #expect(removed.output == "removed 'cloud-box-0c0ffee0.json' from '\(store)'\n")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: store).sorted() == [
                "laptop-9f8e7d6c.json", "studio-mac-1a2b3c4d.json",
            ])
        let again = harness.run("devices", "--store", store, "--forget", "cloud-box-0c0ffee0")
        #expect(again.status == .failure)
        #expect(again.errors.contains("no record 'cloud-box-0c0ffee0.json'"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: store).count == 2)
    }

    @Test("export --format csv: a row per account and window, the daily table, formulas and commas made safe")
    func exportCSV() throws {
        let accounts = Harness().run("export", "--store", examples, "--format", "csv", "--now", "2026-11-30T12:00:00Z")
        #expect(accounts.status == .success)
        let rows = accounts.output.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(
            rows.first
                == "provider,account,device,window,used_percent,remaining_percent,level,resets_at,last_updated,stale")
        #expect(
            rows.contains(
                "codex,you@example.com,studio-mac-1a2b3c4d,session,100,0,depleted,2026-11-30T13:15:00Z,2026-11-30T11:57:41Z,false"
            ))
        #expect(rows.count == 9)

        let harness = Harness()
        let store = harness.home.file("hostile")
        var entry = Records.entry(
            email: "=HYPERLINK(\"http://evil\"),x@example.com", at: "2026-11-30T11:00:00Z", sessionUsed: 10)
        entry.tokens = TokenUsage(
            today: 5, last30Days: 5, daily: [DailyTokens(date: "2026-11-30", tokens: 5, costUSD: 0.25)])
        try harness.home.write(
            "hostile/box.json", Records.json(Records.snapshot("box", generatedAt: "2026-11-30T11:00:00Z", [entry])))
        let hostile = harness.run("export", "--store", store, "--format", "csv", "--now", "2026-11-30T12:00:00Z")
        #expect(
            hostile.output.contains(#"claude,"'=HYPERLINK(""http://evil""),x@example.com",box,session,10"#),
            "\(hostile.output)")
        let daily = harness.run(
            "export", "--store", store, "--format", "csv", "--table", "daily", "--now", "2026-11-30T12:00:00Z")
        #expect(
            daily.output.components(separatedBy: "\r\n").dropFirst().first
                == #"claude,"'=HYPERLINK(""http://evil""),x@example.com",box,2026-11-30,5,0.25"#)
    }
}
