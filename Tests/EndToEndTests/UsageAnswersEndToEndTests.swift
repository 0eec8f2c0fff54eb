import Foundation
import Snapshots
import TestSupport
import Testing

/// The agents' logs and usage endpoints' answers as other projects' tests assert them
/// (`Tests/CollectorsTests/RealWorld`), through the release binary: `publish --source claude:FOLDER` and
/// `codex:FOLDER` on each log case, `claude-api` against a local server answering each answer case.
struct UsageAnswersEndToEndTests {
    let root = TemporaryDirectory("aggctl-usage-answers")
    static let corpus = Repository.path("Tests/CollectorsTests/RealWorld")
    static func cases(_ agent: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: corpus + "/" + agent)) ?? []).sorted()
    }
    static let binary = ReleaseBuild.available ? ReleaseBuild.binary : BinaryRun.binary
    static let logCases = cases("claude").map { "claude/" + $0 } + cases("codex").map { "codex/" + $0 }

    @Test("each log case's 30-day tokens in the published record", arguments: logCases)
    func logs(_ name: String) throws {
        let data = try #require(FileManager.default.contents(atPath: "\(Self.corpus)/\(name)/expected.json"))
        let expected = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let agent = String(name.prefix { $0 != "/" })
        let run = try BinaryRun.run(
            [
                "publish", "--store", root.file("store"), "--source", "\(agent):\(Self.corpus)/\(name)", "--dry-run",
                "--device-id", "laptop", "--now", "2026-11-30T12:00:00Z",
            ],
            environment: ["HOME": root.file("home"), "XDG_STATE_HOME": root.file("state"), "PATH": "/usr/bin:/bin"],
            executable: Self.binary)
        #expect(run.status == 0, "\(run.errors)")
        let record = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        let entry = try #require((record["providers"] as? [[String: Any]])?.first, "\(run.output)")
        let tokens = (entry["tokens"] as? [String: Any])?["last30Days"] as? Int
        #expect(tokens == expected["tokens"] as? Int, "\(name): \(expected["source"] ?? "")")
    }

    @Test("claude-api: each answer's windows and limits in the published record", arguments: cases("claude-api"))
    func claudeAPI(_ name: String) throws {
        let server = try LocalServer.sharedHTTPServer()
        let data = try #require(FileManager.default.contents(atPath: "\(Self.corpus)/claude-api/\(name)/expected.json"))
        let expected = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let run = try BinaryRun.run(
            [
                "publish", "--store", root.file("store"), "--source", "claude-api:" + root.file("claude"), "--dry-run",
                "--device-id", "laptop",
            ],
            environment: [
                "HOME": root.file("home"), "XDG_STATE_HOME": root.file("state"), "PATH": "/usr/bin:/bin",
                "CLAUDE_CODE_OAUTH_TOKEN": "sk-ant-oat01-test",
                "AGGCTL_CLAUDE_API_URL": server.origin + "/real-world/claude-api/\(name)",
            ], executable: Self.binary)
        #expect(run.status == 0, "\(run.errors)")
        let record = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        let entry = try #require((record["providers"] as? [[String: Any]])?.first, "\(run.output)")
        #expect(entry["error"] == nil, "\(entry)")
        #expect((entry["session"] as? [String: Any])?["usedPercent"] as? Double == expected["session"] as? Double)
        #expect((entry["weekly"] as? [String: Any])?["usedPercent"] as? Double == expected["weekly"] as? Double)
        let limits = (entry["limits"] as? [[String: Any]] ?? []).map { [$0["id"] as? String, $0["label"] as? String] }
        let wanted = (expected["limits"] as? [[String: Any]] ?? []).map {
            [$0["id"] as? String, $0["label"] as? String]
        }
        #expect(limits == wanted, "\(name): \(expected["source"] ?? "")")
    }
}
