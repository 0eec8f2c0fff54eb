import Foundation
import Snapshots
import TestSupport
import Testing

/// The examples run what they say: the crontab and units `aggctl init` writes, the serve unit and plist.
struct ExampleFilesEndToEndTests {
    let root = TemporaryDirectory("aggctl-examples")

    /// The arguments after `aggctl` of the example's first line that runs `job`.
    func arguments(_ file: String, job: String) throws -> [String] {
        let text = try String(contentsOfFile: Repository.path(file), encoding: .utf8)
        let line = try #require(
            text.split(separator: "\n").first { !$0.hasPrefix("#") && $0.hasSuffix("aggctl " + job) },
            "\(file) runs \(job)")
        let words = line.split(separator: " ").map(String.init)
        return Array(words[try #require(words.firstIndex(of: job))...])
    }

    /// Examples/config in a home with Codex and Claude Code (no Gemini), its store made a test folder.
    func home() throws -> [String: String] {
        let home = root.file("home")
        for (fixture, place) in [("codex-home", ".codex"), ("claude-home", ".claude")] {
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                atPath: Repository.path("Tests/CollectorsTests/Fixtures/\(fixture)"), toPath: home + "/" + place)
        }
        let config = try String(contentsOfFile: Repository.path("Examples/config"), encoding: .utf8)
        try root.write(
            "home/.config/aggctl/config", config.replacing("/home/you/Sync/aggctl", with: root.file("store")))
        try FileManager.default.createDirectory(atPath: root.file("store"), withIntermediateDirectories: true)
        return ["HOME": home, "XDG_STATE_HOME": root.file("state"), "PATH": "/usr/bin:/bin"]
    }

    @Test(
        "the example crontab's and units' lines, with the example config, publish this machine's agents and check",
        arguments: [
            ("Examples/crontab", "Examples/crontab"),
            ("Examples/systemd/aggctl-publish.service", "Examples/systemd/aggctl-check.service"),
        ])
    func examplesRun(_ publishFile: String, _ checkFile: String) throws {
        let environment = try home()
        let publish = try BinaryRun.run(
            try arguments(publishFile, job: "publish") + ["--dry-run", "--now", "2026-11-30T12:00:00Z"],
            environment: environment)
        #expect(publish.status == 0, "\(publishFile): \(publish.errors)")
        let providers = try RecordCodec.decode(Data(publish.output.utf8), fileName: "x.json").snapshot.providers
        #expect(Set(providers.map(\.providerID)) == ["codex", "claude"], "\(publishFile)")
        // On a store with nothing to tell yet: its backends are all taken, and nothing is sent.
        let check = try BinaryRun.run(
            try arguments(checkFile, job: "check") + ["--now", "2026-11-30T12:00:00Z"], environment: environment)
        #expect(check.status == 0, "\(checkFile): \(check.errors)")
    }

    @Test("the serve unit and plist start what serve takes: their arguments pass its parser")
    func serveExamples() throws {
        let unit = try String(contentsOfFile: Repository.path("Examples/systemd/aggctl-serve.service"), encoding: .utf8)
        let line = try #require(unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        let words = line.split(separator: " ").map(String.init)
        let start = try #require(words.firstIndex(of: "serve"))
        let plist = try String(
            contentsOfFile: Repository.path("Examples/launchd/dev.aggctl.serve.plist"), encoding: .utf8)
        let strings = plist.components(separatedBy: "<string>").dropFirst().compactMap {
            $0.components(separatedBy: "</string>").first
        }
        let plistStart = try #require(strings.firstIndex(of: "serve"))
        for arguments in [Array(words[start...]), Array(strings[plistStart...].prefix { !$0.hasPrefix("/") })] {
            // A port of its own (the example's may be taken), and --help: the flags parse, nothing listens.
            let run = try BinaryRun.run(
                arguments + ["--help"], environment: ["HOME": root.path, "PATH": "/usr/bin:/bin"])
            #expect(run.status == 0, "\(arguments): \(run.errors)")
            #expect(arguments.contains("--listen") && arguments.contains("127.0.0.1:8787"), "loopback in the examples")
        }
    }
}
