import Foundation
import TestSupport
import Testing

@testable import AggctlCLI

/// What `aggctl init` writes: the config file's lines, the crontab block, the systemd units; each read
/// back by what reads it for real (our config reader, `sh`, `systemd-analyze verify`).
struct InitTextTests {
    let root = TemporaryDirectory("aggctl-init-text")

    @Test("the config keeps the user's comments and other keys; init's keys are replaced where they were")
    func configEdit() throws {
        let before = """
            # mine
            store = /old/store   # the old one
            stale-after = 2h
            source = gemini
            notify = stdout

            """
        let after = try ConfigFileText.updating(
            before, with: [("store", ["/new/store"]), ("source", ["codex", "claude:/a b#c"])])
        #expect(
            after == """
                # mine
                store = /new/store
                stale-after = 2h
                source = codex
                source = "claude:/a b#c"
                notify = stdout

                """)
        try root.write("config", after)
        let read = try Configuration.load(path: root.file("config"))
        #expect(read.settings("source").map(\.value) == ["codex", "claude:/a b#c"])
        #expect(read.setting("stale-after")?.value == "2h")
        #expect(try ConfigFileText.updating(after, with: [("store", ["/new/store"])]) == after, "run again: the same")
        #expect(throws: UnschedulableValue.self) { try ConfigFileText.line(key: "store", value: "/a\nstale-after = 1") }
        #expect(throws: UnschedulableValue.self) { try ConfigFileText.line(key: "store", value: "/a #\"b") }
    }

    @Test("crontab: the user's lines kept, aggctl's block replaced in place, hostile paths quoted for sh and cron")
    func crontab() throws {
        let jobs = ScheduledJobs.standard(
            binary: "/opt/it is 100%/aggctl", publishes: true,
            environment: ["XDG_STATE_HOME": "/s/$(touch pwned)", "SECRET": "x", "AGGCTL_CLAUDE_API_URL": "http://h"])
        let block = try jobs.crontabBlock()
        let mine = "MAILTO=me\n0 3 * * * backup\n"
        let first = CrontabText.replacingBlock(in: mine, with: block)
        #expect(first.hasPrefix(mine))
        #expect(CrontabText.replacingBlock(in: first, with: block) == first)
        let moved = CrontabText.replacingBlock(in: first + "5 * * * * later\n", with: block)
        #expect(moved.hasSuffix("5 * * * * later\n"), "the block stays where it was")
        #expect(!first.contains("SECRET"))
        // cron turns an unescaped % into a line break, then sh reads the line: run it as they would.
        let line = try #require(block.first { $0.hasPrefix("* * * * * ") && $0.hasSuffix(" publish") })
        let command = String(line.dropFirst("* * * * * ".count)).replacing("\\%", with: "%")
        let probe = try Self.run(
            ["-c", "printf '%s\\n' " + command], environment: ["PATH": "/usr/bin:/bin"], executable: "/bin/sh")
        #expect(
            probe.output
                == "XDG_STATE_HOME=/s/$(touch pwned)\nAGGCTL_CLAUDE_API_URL=http://h\n/opt/it is 100%/aggctl\npublish\n"
        )
        #expect(throws: UnschedulableValue.self) {
            try ScheduledJobs.standard(binary: "/a\n* * * * * evil", publishes: true, environment: [:]).crontabBlock()
        }
        #expect(
            CrontabText.otherAggctlLines(in: first + "* * * * * aggctl publish\n") == [
                first.split(separator: "\n").count + 1
            ])
    }

    @Test("systemd units pass systemd-analyze verify, with a path and variables that need quoting")
    func systemdUnits() throws {
        let analyze = "/usr/bin/systemd-analyze"
        guard FileManager.default.isExecutableFile(atPath: analyze) else {
            #expect(ProcessInfo.processInfo.environment["CI"] != "true", "systemd-analyze missing under CI")
            return
        }
        try root.write("bin/it is 100%/aggctl", "#!/bin/sh\n")
        chmod(root.file("bin/it is 100%/aggctl"), 0o755)
        let jobs = ScheduledJobs.standard(
            binary: root.file("bin/it is 100%/aggctl"), publishes: true,
            environment: ["XDG_STATE_HOME": "/s/a \"b\" %h $HOME", "TZ": "Europe/Berlin"])
        var paths: [String] = []
        for unit in try jobs.systemdUnits() {
            try root.write("units/" + unit.name, unit.text)
            paths.append(root.file("units/" + unit.name))
        }
        #expect(paths.count == 4)
        try root.write("runtime/.keep", "")
        let verified = try Self.run(
            ["verify", "--user"] + paths,
            environment: ["PATH": "/usr/bin:/bin", "XDG_RUNTIME_DIR": root.file("runtime"), "HOME": root.path],
            executable: analyze)
        #expect(verified.status == 0, "\(verified.errors)")
        // What systemd makes of the quoting: the path and the value exactly.
        let service = try #require(try jobs.systemdUnits().first { $0.name == "aggctl-publish.service" }?.text)
        #expect(service.contains(#"ExecStart="\#(root.path)/bin/it is 100%%/aggctl" publish"#))
        #expect(throws: UnschedulableValue.self) {
            try ScheduledJobs.standard(binary: "/it's/aggctl", publishes: true, environment: [:]).systemdUnits()
        }
        #expect(service.contains(#"Environment="XDG_STATE_HOME=/s/a \"b\" %%h $HOME""#))
    }

    @Test("Examples/config, Examples/crontab and Examples/systemd's publish and check units are what init writes")
    func examplesAreInitsOutput() throws {
        func example(_ path: String) throws -> String {
            try String(contentsOfFile: Repository.path("Examples/" + path), encoding: .utf8)
        }
        let config = try ConfigFileText.updating(
            nil,
            with: [
                ("store", ["/home/you/Sync/aggctl"]), ("source", ["codex", "claude"]),
                ("notify", ["desktop", "ntfy:https://ntfy.sh/CHANGE-ME-to-your-topic"]),
            ])
        #expect(try example("config") == config)
        let jobs = ScheduledJobs.standard(binary: "/home/you/.local/bin/aggctl", publishes: true, environment: [:])
        let block = try jobs.crontabBlock().joined(separator: "\n") + "\n"
        #expect(try example("crontab").hasSuffix(block))
        for unit in try jobs.systemdUnits() {
            #expect(try example("systemd/" + unit.name) == unit.text, "\(unit.name)")
        }
    }

    /// Runs `executable` with exactly `environment`; its exit status, stdout and stderr.
    static func run(_ arguments: [String], environment: [String: String], executable: String) throws -> (
        status: Int32, output: String, errors: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let (output, errors) = (Pipe(), Pipe())
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let written = output.fileHandleForReading.readDataToEndOfFile()
        let said = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: written, as: UTF8.self), String(decoding: said, as: UTF8.self)
        )
    }
}
