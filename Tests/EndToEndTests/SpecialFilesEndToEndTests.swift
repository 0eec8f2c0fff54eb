import Foundation
import Snapshots
import TestSupport
import Testing

/// A FIFO, a socket or a link to a device named like an agent's log, among the real logs: each collector
/// reads only regular files, never waits on one, and counts the logs beside them as it would without.
struct SpecialFilesEndToEndTests {
    let root = TemporaryDirectory("aggctl-special-files")

    /// Each collector's fixture, the folder of its logs, and how a log's name starts and ends there.
    static let collectors: [(source: String, fixture: String, folder: String, prefix: String, suffix: String)] = [
        ("codex", "codex-home", "sessions/2026/11/30", "rollout-", ".jsonl"),
        ("claude", "claude-home", "projects/-home-dev-work-project-00", "", ".jsonl"),
        ("gemini", "gemini-home", "tmp/0f3a9c/chats", "session-", ".json"),
    ]

    func publish(_ source: String, home: String) throws -> BinaryRun {
        try BinaryRun.run(
            ["publish", "--dry-run", "--now", "2026-11-30T12:00:00Z", "--source", "\(source):\(home)"],
            environment: ["HOME": root.file("home"), "XDG_STATE_HOME": root.file("state"), "PATH": "/usr/bin:/bin"],
            timeout: 30)
    }

    @Test("a FIFO, a socket and a link to a device among the logs are passed over", arguments: collectors)
    func passedOver(source: String, fixture: String, folder: String, prefix: String, suffix: String) throws {
        let home = root.file(source)
        try FileManager.default.copyItem(
            atPath: Repository.path("Tests/CollectorsTests/Fixtures/\(fixture)"), toPath: home)
        let plain = try publish(source, home: home)
        #expect(plain.status == 0, "\(plain.errors)")
        let expected = try RecordCodec.decode(Data(plain.output.utf8), fileName: "x.json").snapshot.providers

        let logs = home + "/" + folder + "/" + prefix
        #expect(mkfifo(logs + "f" + suffix, 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: logs + "z" + suffix, withDestinationPath: "/dev/zero")
        let socket = try UnixSocket(path: logs + "s" + suffix)
        defer { socket.close() }
        let started = Date()
        let run = try publish(source, home: home)
        #expect(Date().timeIntervalSince(started) < 20, "waited on a special file")
        #expect(run.status == 0, "\(source): \(run.errors)")
        let providers = try RecordCodec.decode(Data(run.output.utf8), fileName: "x.json").snapshot.providers
        #expect(providers.map(\.tokens) == expected.map(\.tokens), "\(source)")
    }
}
