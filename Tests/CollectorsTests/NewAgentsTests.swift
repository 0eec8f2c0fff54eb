import Collectors
import Foundation
import HTTP
import Snapshots
import TestSupport
import Testing

/// Gemini CLI's sessions and GitHub Copilot's quota endpoint.
struct NewAgentsTests {
    let folder = TemporaryDirectory("aggctl-new-agents")
    static let fixtures = Repository.path("Tests/CollectorsTests/Fixtures")
    let now = Records.date("2026-11-30T12:00:00Z")

    @Test("gemini: tokens per UTC day from session-*.json and .jsonl, each message once, older sessions kept working")
    func gemini() throws {
        let home = Self.fixtures + "/gemini-home"
        let expected = try #require(
            try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: home + "/expected.json")))
                as? [String: Any])
        let entry = try GeminiCollector(home: home).collect(now: now)
        #expect(entry.providerID == "gemini")
        #expect(entry.accountEmail == expected["account"] as? String)
        let perDay = try #require(expected["per_day"] as? [String: Int])
        #expect(Dictionary(uniqueKeysWithValues: (entry.tokens?.daily ?? []).map { ($0.date, $0.tokens) }) == perDay)
        #expect(entry.tokens?.today == perDay["2026-11-30"])
        #expect(entry.session == nil && entry.weekly == nil)
    }

    @Test("gemini: a session file outside a chats folder (a checkpoint, a copy) is not counted")
    func geminiOnlyChats() throws {
        let home = folder.file("gemini-chats")
        try FileManager.default.copyItem(atPath: Self.fixtures + "/gemini-home", toPath: home)
        let before = try GeminiCollector(home: home).collect(now: now)
        // A session of messages of its own (new ids), which would count if it were read.
        let session = try String(
            contentsOfFile: home + "/tmp/0f3a9c/chats/session-2026-11-30T09-00-a1b2c3d4.json", encoding: .utf8
        ).replacingOccurrences(of: "\"id\": \"", with: "\"id\": \"other-")
        for copy in ["/tmp/0f3a9c/checkpoints/session-copy.json", "/tmp/0f3a9c/chatsold/session-copy.json"] {
            try FileManager.default.createDirectory(
                atPath: URL(fileURLWithPath: home + copy).deletingLastPathComponent().path,
                withIntermediateDirectories: true)
            try session.write(toFile: home + copy, atomically: true, encoding: .utf8)
        }
        #expect(try GeminiCollector(home: home).collect(now: now).tokens == before.tokens)
        // The same file in a chats folder does count.
        try session.write(toFile: home + "/tmp/0f3a9c/chats/session-other.json", atomically: true, encoding: .utf8)
        #expect(try GeminiCollector(home: home).collect(now: now).tokens != before.tokens)
    }

    @Test("gemini: a session document rewritten as it grows is read again whole, incrementally nothing twice")
    func geminiIncremental() throws {
        let home = folder.file("gemini")
        try FileManager.default.copyItem(atPath: Self.fixtures + "/gemini-home", toPath: home)
        let state = folder.file("state")
        let first = try GeminiCollector(home: home).collect(now: now, stateFolder: state)
        let session = home + "/tmp/0f3a9c/chats/session-2026-11-30T09-00-a1b2c3d4.json"
        var text = try String(contentsOfFile: session, encoding: .utf8)
        text = text.replacingOccurrences(
            of: "\n  ]\n}",
            with: """
                ,
                    {"id": "m-new", "timestamp": "2026-11-30T11:00:00.000Z", "type": "gemini", "content": "ok",
                     "tokens": {"input": 900, "output": 100, "cached": 0, "thoughts": 0, "tool": 0, "total": 1000},
                     "model": "gemini-2.5-pro"}
                  ]
                }
                """)
        try text.write(toFile: session, atomically: false, encoding: .utf8)
        let second = try GeminiCollector(home: home).collect(now: now, stateFolder: state)
        #expect(second.tokens?.today == (first.tokens?.today ?? 0) + 1000)
        let third = try GeminiCollector(home: home).collect(now: now, stateFolder: state)
        #expect(third.tokens == second.tokens)
    }

    @Test("copilot-api: the premium-requests quota as a monthly window; unlimited plans say so; no token is signed out")
    func copilot() throws {
        let origin = try LocalServer.sharedHTTPServer().origin
        let client = HTTPClient(
            .init(retry: RetryPolicy(attempts: 1, initialDelay: 0, maximumDelay: 0, jitter: 0) { _ in }))
        try folder.write(
            "gh/hosts.yml",
            "github.com:\n    user: octo-dev\n    oauth_token: gho_EXAMPLE_NOT_A_REAL_TOKEN\n    git_protocol: https\n")
        let environment = [
            "HOME": folder.path, "GH_CONFIG_DIR": folder.file("gh"), "AGGCTL_COPILOT_API_URL": "\(origin)/usage-api/ok",
        ]
        let entry = CopilotUsageEndpoint(environment: environment, client: client).collect(now: now)
        #expect(entry.error == nil)
        #expect(entry.providerID == "copilot" && entry.accountEmail == "octo-dev" && entry.plan == "Individual Pro")
        // The month is a binding limit, never the weekly window (docs/format.md, `Limit`).
        #expect(
            entry.limits == [
                Limit(
                    id: "premium-monthly", label: "Premium requests", windowMinutes: 30 * 1440, usedPercent: 72.5,
                    resetsAt: Records.date("2026-12-01T00:00:00Z"), used: 217.5, limit: 300, unit: "requests",
                    binding: true)
            ])
        #expect(entry.session == nil && entry.weekly == nil)

        var unlimited = environment
        unlimited["AGGCTL_COPILOT_API_URL"] = "\(origin)/usage-api/ok/unlimited"
        let corp = CopilotUsageEndpoint(environment: unlimited, client: client).collect(now: now)
        #expect(corp.limits == nil && corp.error == "unlimited premium requests: no quota window")
        #expect(corp.plan == "Business")

        let none = CopilotUsageEndpoint(
            environment: ["HOME": folder.path, "GH_CONFIG_DIR": folder.file("none")], client: client
        )
        .collect(now: now)
        #expect(none.error == "signed out (no token in GH_TOKEN, GITHUB_TOKEN or '\(folder.file("none"))/hosts.yml')")
        var refused = environment
        refused["GH_TOKEN"] = "gho_WRONG"
        let wrong = CopilotUsageEndpoint(environment: refused, client: client).collect(now: now)
        #expect(wrong.error == "signed out (the usage endpoint refused the token: HTTP 401)")
        #expect(!(wrong.error ?? "").contains("gho_"))
    }
}
