import Foundation
import Snapshots
import TestSupport
import Testing

/// `publish` as one cron line on machines that differ: what could be read is published, the rest is a
/// warning; and a store that did not exist is said to be new.
struct PublishPartialEndToEndTests {
    let root = TemporaryDirectory("aggctl-partial")
    static let fixtures = Repository.path("Tests/CollectorsTests/Fixtures")

    func publish(_ arguments: [String]) throws -> BinaryRun {
        try BinaryRun.run(
            ["publish", "--store", root.file("store"), "--now", "2026-11-30T12:00:00Z"] + arguments,
            environment: ["HOME": root.file("home"), "XDG_STATE_HOME": root.file("state"), "PATH": "/usr/bin:/bin"])
    }

    @Test("codex read, gemini not installed: the record carries Codex, one warning, exit 0; none read: exit 1")
    func partial() throws {
        let run = try publish([
            "--source", "codex:\(Self.fixtures)/codex-home", "--source", "gemini:\(root.file("no-gemini"))",
            "--device-id", "box",
        ])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.errors.contains("--source gemini"), "\(run.errors)")
        #expect(run.errors.contains("published without it"))
        let record = try RecordCodec.decode(
            try Data(contentsOf: URL(fileURLWithPath: root.file("store/box.json"))), fileName: "box.json")
        #expect(record.snapshot.providers.map(\.providerID) == ["codex"])
        let nothing = try publish(["--source", "gemini:\(root.file("no-gemini"))", "--device-id", "box"])
        #expect(nothing.status == 1)
        #expect(nothing.errors.contains("--source gemini"))
    }

    @Test("the first publish to a store that did not exist says it made a new one; the next says nothing")
    func newStore() throws {
        let input = root.file("usage.json")
        try root.write(
            "usage.json",
            #"[{"providerID": "claude", "accountEmail": "a@example.com", "lastUpdated": "2026-11-30T11:59:00Z"}]"#)
        let first = try publish(["--from", input, "--device-id", "laptop"])
        #expect(first.status == 0)
        #expect(
            first.errors.contains("created a new store at \(root.file("store")): no other machine publishes here yet"))
        let second = try publish(["--from", input, "--device-id", "desktop"])
        #expect(second.status == 0)
        #expect(!second.errors.contains("new store"), "\(second.errors)")
    }

    @Test("--source claude names the account Claude Code is signed in with, so two machines' rows merge into one")
    func claudeAccountNamed() throws {
        for machine in ["laptop", "desktop"] {
            let home = root.file(machine)
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Self.fixtures + "/claude-home", toPath: home + "/.claude")
            // Where Claude Code keeps the signed-in account: ~/.claude.json's `oauthAccount`, the shape
            // ai-screams/howl's internal/account_test.go (34dc6d7c, "valid config with all fields") reads
            // `emailAddress` from.
            try root.write(
                machine + "/.claude.json",
                #"{"oauthAccount": {"emailAddress": "work@example.com", "displayName": "Test User", "accountUuid": "12345-abcde"}}"#
            )
            let run = try BinaryRun.run(
                [
                    "publish", "--store", root.file("store"), "--source", "claude", "--device-id", machine, "--now",
                    "2026-11-30T12:00:00Z",
                ],
                environment: ["HOME": home, "XDG_STATE_HOME": home + "/state", "PATH": "/usr/bin:/bin"])
            #expect(run.status == 0, "\(run.errors)")
        }
        let status = try BinaryRun.run(
            ["status", "--store", root.file("store"), "--json", "--now", "2026-11-30T12:00:00Z"],
            environment: ["HOME": root.file("reader"), "PATH": "/usr/bin:/bin"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
        let accounts = document["accounts"] as? [[String: Any]] ?? []
        #expect(accounts.map { $0["accountEmail"] as? String } == ["work@example.com"], "\(status.output.prefix(400))")
        #expect((accounts.first?["seenOn"] as? [String])?.sorted() == ["desktop", "laptop"])
    }

    @Test("status on a store with nothing in it yet says what to run")
    func emptyStoreSaysWhatToRun() throws {
        try FileManager.default.createDirectory(atPath: root.file("store"), withIntermediateDirectories: true)
        let status = try BinaryRun.run(
            ["status", "--store", root.file("store")],
            environment: ["HOME": root.file("home"), "PATH": "/usr/bin:/bin"])
        #expect(status.status == 0)
        #expect(status.output.hasPrefix("no accounts in the store yet: publish this machine's with 'aggctl publish"))
    }

    @Test("--source claude where Claude Code is signed in carries the usage answer's windows; signed out, the logs'")
    func claudeWithItsAnswer() throws {
        let server = try LocalServer.sharedHTTPServer()
        let home = root.file("home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.fixtures + "/claude-home", toPath: home + "/.claude")
        func run(_ extra: [String: String]) throws -> ProviderUsage? {
            let run = try BinaryRun.run(
                ["publish", "--source", "claude", "--dry-run", "--device-id", "box", "--now", "2026-11-30T12:00:00Z"],
                environment: ["HOME": home, "XDG_STATE_HOME": root.file("state"), "PATH": "/usr/bin:/bin"]
                    .merging(extra) { $1 })
            #expect(run.status == 0, "\(run.errors)")
            return try RecordCodec.decode(Data(run.output.utf8), fileName: "box.json").snapshot.providers.first
        }
        let signedIn = try run([
            "CLAUDE_CODE_OAUTH_TOKEN": "sk-ant-oat01-test",
            "AGGCTL_CLAUDE_API_URL": server.origin + "/real-world/claude-api/fable-scoped-week",
        ])
        #expect(signedIn?.session?.usedPercent == 11 && signedIn?.weekly?.usedPercent == 9)
        #expect(signedIn?.limits?.map(\.id) == ["fable-weekly"])
        #expect((signedIn?.tokens?.last30Days ?? 0) > 0, "the logs' tokens stay")
        let signedOut = try run([:])
        #expect(signedOut?.session?.usedPercent != 11, "no answer asked without credentials")
        #expect((signedOut?.tokens?.last30Days ?? 0) > 0)
    }
}
