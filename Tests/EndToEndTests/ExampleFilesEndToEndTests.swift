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
}
