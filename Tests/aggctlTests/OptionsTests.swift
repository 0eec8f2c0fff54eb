import Aggregator
import Foundation
import Snapshots
import TestSupport
import Testing

@testable import AggctlCLI

/// Each command's typed options, built in one throwing step from flags, environment and config file.
struct OptionsTests {
    let home = TemporaryDirectory("aggctl-options")

    /// A context with `environment` (beside HOME and XDG_CONFIG_HOME) and the config file `config`.
    func context(_ environment: [String: String] = [:], config: String? = nil) throws -> RunContext {
        var variables = [
            "HOME": home.path, "XDG_CONFIG_HOME": home.file("config"), "XDG_STATE_HOME": home.file("state"),
        ]
        variables.merge(environment) { _, new in new }
        var context = RunContext.standard(environment: variables)
        if let config {
            try home.write("config/aggctl/config", config)
            context.configuration = try Configuration.load(path: context.configFile, home: context.home)
        }
        return context
    }

    func flags(_ words: String..., specs: [FlagSpec]) throws -> ParsedFlags {
        try ParsedFlags.parse(ArgumentLexer.tokens(words), specs: specs, command: "test")
    }

    func usageError(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as UsageError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test("status: a flag wins over AGGCTL_STORE, which wins over the config file; defaults otherwise")
    func statusSources() throws {
        let config = "store = /from/config\nstale-after = 120\n"
        let fromFlag = try StatusCommand.Options(
            try flags("--store", "/from/flag", "--json", specs: StatusCommand.flags),
            context: try context(["AGGCTL_STORE": "/from/env"], config: config))
        #expect(fromFlag.merge.location == .directory(path: "/from/flag"))
        #expect(fromFlag.json)
        #expect(fromFlag.merge.staleAfter == 120)
        #expect(fromFlag.merge.maxSkew == MergeOptions.defaultMaxSkew)
        let fromEnvironment = try StatusCommand.Options(
            try flags(specs: StatusCommand.flags), context: try context(["AGGCTL_STORE": "/from/env"], config: config))
        #expect(fromEnvironment.merge.location == .directory(path: "/from/env"))
        #expect(!fromEnvironment.json)
        let fromConfig = try StatusCommand.Options(
            try flags(specs: StatusCommand.flags), context: try context(config: config))
        #expect(fromConfig.merge.location == .directory(path: "/from/config"))
        #expect(fromConfig.merge.now == nil)
    }

    @Test("durations take a unit: 90s, 15m, 1h, 2d, or a bare number of seconds; anything else is refused")
    func durations() throws {
        for (text, seconds) in [
            ("90s", 90.0), ("15m", 900), ("1h", 3600), ("2d", 172_800), ("3600", 3600), ("1.5h", 5400),
        ] {
            #expect(try ValueParsers.seconds(Setting(value: text, source: .flag("stale-after"))) == seconds, "\(text)")
        }
        for text in ["", "h", "1w", "-1h", "1e3", "inf", "nan", "1 h 2"] {
            #expect(throws: UsageError.self, "\(text)") {
                try ValueParsers.seconds(Setting(value: text, source: .flag("stale-after")))
            }
        }
    }

    @Test("a bad value names where it came from: the flag, the variable, or the config file's line")
    func errorsNameTheirSource() throws {
        #expect(
            usageError {
                _ = try StatusCommand.Options(
                    try flags("--store", "/s", "--stale-after", "soon", specs: StatusCommand.flags),
                    context: try context())
            }
                == "--stale-after: 'soon' is not a duration; expected a number and a unit such as 90s, 15m, 1h or 2d (a bare number is seconds)"
        )
        #expect(
            usageError {
                _ = try StatusCommand.Options(
                    try flags("--store", "/s", specs: StatusCommand.flags),
                    context: try context(config: "# defaults\nmax-skew = -5\n"))
            }
                == "config line 2 (max-skew): '-5' is not a duration; expected a number and a unit such as 90s, 15m, 1h or 2d (a bare number is seconds)"
        )
        let store = usageError {
            _ = try StatusCommand.Options(
                try flags(specs: StatusCommand.flags), context: try context(["AGGCTL_STORE": "http://h/dav/?q=1"]))
        }
        #expect(store?.hasPrefix("AGGCTL_STORE: ") == true, "\(store ?? "")")
        #expect(
            usageError {
                _ = try PublishCommand.Options(
                    try flags("--store", "/s", "--from", "-", specs: PublishCommand.flags),
                    context: try context(config: "device-id = ../x\n"))
            }?.hasPrefix("config line 1 (device-id): '../x' is not a valid device id") == true)
    }

    @Test("check: backends, thresholds, pace warnings and the lock timeout, settled before anything runs")
    func check() throws {
        let setup = try CheckCommand.Setup(
            try flags(
                "--store", "/s", "--notify", "stdout", "--warn-at", "25,10", "--warn-pace", "--lock-timeout", "2.5",
                "--now", "2026-11-30T12:00:00Z", specs: CheckCommand.flags),
            context: try context(), command: "check")
        #expect(setup.warnAt == [25, 10])
        #expect(setup.warnPace)
        #expect(setup.lockTimeout == 2.5)
        #expect(setup.merge.now == Records.date("2026-11-30T12:00:00Z"))
        #expect(setup.notifiers.count == 1)
        // Without --now, each round of `watch` merges at its own moment.
        let clockRun = try CheckCommand.Setup(
            try flags("--store", "/s", "--notify", "stdout", specs: CheckCommand.flags), context: try context(),
            command: "watch")
        #expect(clockRun.merge.now == nil)
        #expect(
            clockRun.merge.options(clock: { Records.date("2026-12-01T00:00:00Z") }).now
                == Records.date("2026-12-01T00:00:00Z"))
    }

    @Test("report and publish: their own options with the shared ones")
    func reportAndPublish() throws {
        let report = try ReportCommand.Options(
            try flags("--store", "/s", "--out", "/tmp/r.html", "--days", "14", specs: ReportCommand.flags),
            context: try context())
        #expect(report.days == 14 && report.out == .file("/tmp/r.html"))
        #expect(
            usageError {
                _ = try ReportCommand.Options(
                    try flags("--store", "/s", "--out", "/tmp/r.html", "--days", "91", specs: ReportCommand.flags),
                    context: try context())
            } == "--days: '91' is not a number of days; expected a whole number from 1 to 90")
        let publish = try PublishCommand.Options(
            try flags(
                "--store", "/s", "--from", "-", "--dry-run", "--now", "2026-11-30T12:00:00Z",
                specs: PublishCommand.flags),
            context: try context(config: "device-name = studio\n"))
        #expect(publish.dryRun && publish.inputs == ["-"] && publish.deviceName == "studio")
        #expect(publish.now == Records.date("2026-11-30T12:00:00Z"))
    }

    @Test("the config file: CRLF, comments, ~ and $HOME expanded, a key twice names both lines, check's keys")
    func configFile() throws {
        let context = try context(
            config:
                "# aggctl\r\nstore = ~/Sync/aggctl\r\nstate-dir = $HOME/state\r\nwarn-at = 25,10\r\nnotify = stdout\r\n"
        )
        let setup = try CheckCommand.Setup(try flags(specs: CheckCommand.flags), context: context, command: "check")
        #expect(setup.merge.location == .directory(path: home.path + "/Sync/aggctl"))
        #expect(setup.ledger.file.directory == home.path + "/state")
        #expect(setup.warnAt == [25, 10])
        #expect(setup.notifiers.count == 1)
        #expect(
            usageError { _ = try self.context(config: "store = /a\n\nstore = /b\n") }?.hasSuffix(
                "line 3: 'store' is given again (first on line 1); keep one") == true)
        #expect(
            usageError {
                _ = try CheckCommand.Setup(
                    try flags("--store", "/s", specs: CheckCommand.flags),
                    context: try self.context(config: "warn-at = lots\n"),
                    command: "check")
            }
                == "config line 1 (warn-at): 'lots' is not a list of percentages; expected whole numbers 1-99 such as 25,10"
        )
    }

    @Test("the config file: a comment after white space ends the value; quotes keep it; only $HOME expands")
    func configValues() throws {
        let store = try context(config: "store = ~/Sync/aggctl # my synced folder\n")
        #expect(
            try store.storeLocation(try flags(specs: CheckCommand.flags), command: "status")
                == .directory(path: home.path + "/Sync/aggctl"))
        for (text, value) in [
            ("~/a#b", home.path + "/a#b"), ("\"/x # kept\" # comment", "/x # kept"), ("$HOMEX/y", "$HOMEX/y"),
            ("${HOME}/y", home.path + "/y"), ("$HOME", home.path), ("/a$HOME_DIR", "/a$HOME_DIR"),
            ("$HOME/$HOME", home.path + "/" + home.path), ("/p\t# tab comment", "/p"),
        ] {
            let configured = try context(config: "state-dir = \(text)\n")
            #expect(configured.configuration.setting("state-dir")?.value == value, "\(text)")
        }
        #expect(
            usageError { _ = try self.context(config: "store = \"/open\n") }?.hasSuffix(
                "line 1: the value's closing quote is missing, or text follows it") == true)
    }

    @Test("aggctl config shows each setting's value and source, with secrets masked")
    func configCommand() throws {
        var harness = Harness()
        harness.environment["AGGCTL_STORE"] = "https://me:hunter2@dav.example.org/aggctl/"
        try harness.home.write("config/aggctl/config", "notify = webhook:https://ntfy.sh/secret-topic\nwarn-at = 25\n")
        let outcome = harness.run("config")
        #expect(outcome.status == .success)
        #expect(!outcome.output.contains("hunter2") && !outcome.output.contains("secret-topic"))
        let rows = outcome.output.split(separator: "\n").map {
            $0.split(separator: " ", omittingEmptySubsequences: true)
        }
        #expect(rows.contains { $0.first == "store" && $0.last == "AGGCTL_STORE" })
        #expect(rows.contains { $0.first == "warn-at" && $0.contains("25") && $0.contains("(warn-at)") })
        #expect(rows.contains { $0.first == "stale-after" && $0.contains("3600") && $0.last == "default" })
    }

    @Test("aggctl config marks a value commands would refuse, and a kept device id comes from the state file")
    func configInvalidAndKept() throws {
        let harness = Harness()
        try harness.home.write("config/aggctl/config", "stale-after = nan\nwarn-at = 5,lots\n")
        try harness.home.write("state/aggctl/device-id", "studio-1a2b3c4d\n")
        let outcome = harness.run("config")
        #expect(outcome.status == .success)
        let lines = outcome.output.split(separator: "\n")
        let stale = try #require(lines.first { $0.hasPrefix("stale-after") })
        #expect(stale.contains("not in effect: config line 1 (stale-after): 'nan' is not a duration"))
        #expect(lines.contains { $0.hasPrefix("warn-at") && $0.contains("not in effect") })
        let device = try #require(lines.first { $0.hasPrefix("device-id") })
        #expect(device.contains("studio-1a2b3c4d") && device.contains("/device-id'") && !device.contains("default"))
    }
}
