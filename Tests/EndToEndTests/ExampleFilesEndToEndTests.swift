import Foundation
import Snapshots
import TestSupport
import Testing

/// The example crontab and systemd unit publish what they say, on a machine that has the agents' logs.
struct ExampleFilesEndToEndTests {
    let root = TemporaryDirectory("aggctl-examples")

    /// The `aggctl publish ...` arguments of the example's first line that runs one.
    func publishArguments(_ file: String, marker: String) throws -> [String] {
        let text = try String(contentsOfFile: Repository.path(file), encoding: .utf8)
        let line = try #require(
            text.split(separator: "\n").first { !$0.hasPrefix("#") && $0.contains(marker) }, "\(file) publishes")
        let words = line.split(separator: " ").map(String.init)
        let start = try #require(words.firstIndex(of: "publish"))
        return Array(words[start...])
    }

    @Test(
        "the crontab's and the systemd unit's publish read this machine's agents",
        arguments: [
            ("Examples/crontab", "aggctl publish"), ("Examples/systemd/aggctl-publish.service", "ExecStart="),
        ])
    func examplesPublish(_ file: String, _ marker: String) throws {
        let home = root.file("home")
        for (fixture, place) in [("codex-home", ".codex"), ("claude-home", ".claude"), ("gemini-home", ".gemini")] {
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                atPath: Repository.path("Tests/CollectorsTests/Fixtures/\(fixture)"), toPath: home + "/" + place)
        }
        let arguments = try publishArguments(file, marker: marker)
        #expect(!arguments.contains("--from"), "the default is the agents' own logs")
        let run = try BinaryRun.run(
            arguments + ["--dry-run", "--now", "2026-11-30T12:00:00Z"],
            environment: ["HOME": home, "XDG_STATE_HOME": root.file("state"), "PATH": "/usr/bin:/bin"])
        #expect(run.status == 0, "\(file): \(run.errors)")
        let providers = try SnapshotCodec.decode(Data(run.output.utf8), fileName: "x.json").snapshot.providers
        #expect(Set(providers.map(\.providerID)) == ["codex", "claude", "gemini"], "\(file)")
        try FileManager.default.removeItem(atPath: home)
    }

    @Test("the crontab publishes on a machine without Gemini, and its check line needs nothing it does not install")
    func crontabAsWritten() throws {
        let home = root.file("home")
        for (fixture, place) in [("codex-home", ".codex"), ("claude-home", ".claude")] {
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                atPath: Repository.path("Tests/CollectorsTests/Fixtures/\(fixture)"), toPath: home + "/" + place)
        }
        let arguments = try publishArguments("Examples/crontab", marker: "aggctl publish")
        let run = try BinaryRun.run(
            arguments + ["--dry-run", "--now", "2026-11-30T12:00:00Z"],
            environment: ["HOME": home, "XDG_STATE_HOME": root.file("state"), "PATH": "/usr/bin:/bin"])
        #expect(run.status == 0, "\(run.errors)")
        let providers = try SnapshotCodec.decode(Data(run.output.utf8), fileName: "x.json").snapshot.providers
        #expect(Set(providers.map(\.providerID)) == ["codex", "claude"])
        let text = try String(contentsOfFile: Repository.path("Examples/crontab"), encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { !$0.hasPrefix("#") && $0.contains("aggctl check") })
        let words = line.split(separator: " ").map(String.init)
        let checkArguments = Array(words[try #require(words.firstIndex(of: "check"))...])
        #expect(!checkArguments.contains { $0.hasPrefix("command:") }, "a hook script/install does not install")
        // The line as written, on a store with nothing to tell yet: its flags and backends must all be
        // taken (nothing is sent, so its ntfy.sh topic is never reached).
        try FileManager.default.createDirectory(atPath: root.file("empty-store"), withIntermediateDirectories: true)
        let check = try BinaryRun.run(
            checkArguments + ["--store", root.file("empty-store"), "--now", "2026-11-30T12:00:00Z"],
            environment: ["HOME": home, "XDG_STATE_HOME": root.file("state"), "PATH": "/usr/bin:/bin"])
        #expect(check.status == 0, "\(check.errors)")
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
