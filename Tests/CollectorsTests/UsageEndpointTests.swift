import Collectors
import Foundation
import HTTP
import Serialization
import Snapshots
import TestSupport
import Testing

/// The usage endpoints against a real local server answering with the fixtures of `Fixtures/api`.
struct UsageEndpointTests {
    let folder = TemporaryDirectory("aggctl-endpoints")
    let now = Records.date("2026-11-30T12:00:00Z")
    let origin: String

    static let claudeToken = "sk-ant-oat01-EXAMPLE-NOT-A-REAL-TOKEN"
    static let fixtures = Repository.path("Tests/CollectorsTests/Fixtures")

    init() throws {
        origin = try LocalServer.sharedHTTPServer().origin
    }

    /// Retries without waiting.
    static let client = HTTPClient(
        .init(retry: RetryPolicy(attempts: 2, initialDelay: 0, maximumDelay: 0, jitter: 0) { _ in }))

    /// A Claude config folder holding the fixture's credentials (token valid until 2026-11-30T17:26:40Z)
    /// and Claude Code's account file.
    func claudeFolder() throws -> String {
        let credentials = try String(contentsOfFile: Self.fixtures + "/api/claude-credentials.json", encoding: .utf8)
        try folder.write("claude/.credentials.json", credentials)
        try folder.write("claude/.claude.json", #"{"oauthAccount": {"emailAddress": "you@example.com"}}"#)
        return folder.file("claude")
    }

    func claude(_ scenario: String, configFolder: String, token: String? = nil) -> ProviderUsage {
        ClaudeUsageEndpoint(
            configFolder: configFolder, home: folder.path, token: token, baseURL: "\(origin)/usage-api/\(scenario)",
            client: Self.client
        ).collect(now: now)
    }

    @Test("claude-api: the windows come from the endpoint, the account and plan from Claude Code's files")
    func claudeWindows() throws {
        let entry = claude("ok", configFolder: try claudeFolder())
        #expect(entry.error == nil)
        #expect(entry.providerID == "claude" && entry.accountEmail == "you@example.com" && entry.plan == "Max 20x")
        #expect(
            entry.session
                == UsageWindow(usedPercent: 37, windowMinutes: 300, resetsAt: Records.date("2026-11-30T14:59:59Z")))
        #expect(entry.weekly?.usedPercent == 26 && entry.weekly?.windowMinutes == 10_080)
        #expect(entry.weekly?.resetsAt == RFC3339.parse("2026-12-05T14:59:59.771647Z"))
        #expect(entry.limits?.map(\.id) == ["sonnet-weekly"])
        #expect(entry.limits?.first?.usedPercent == 1)
        #expect(entry.lastUpdated == now)
    }

    @Test("claude-api: CLAUDE_CODE_OAUTH_TOKEN is used without any file; a missing or expired token is signed out")
    func claudeTokens() throws {
        let empty = folder.file("empty")
        #expect(claude("ok", configFolder: empty, token: Self.claudeToken).session?.usedPercent == 37)
        let missing = claude("ok", configFolder: empty)
        #expect(missing.error == "signed out (no token in CLAUDE_CODE_OAUTH_TOKEN or '\(empty)/.credentials.json')")
        #expect(missing.session == nil)
        let expired = ClaudeUsageEndpoint(
            configFolder: try claudeFolder(), home: folder.path, token: nil, baseURL: "\(origin)/usage-api/ok",
            client: Self.client
        ).collect(now: Records.date("2026-12-01T00:00:00Z"))
        #expect(expired.error?.hasPrefix("signed out (the token in") == true)
    }

    @Test("claude-api: a refused token, a 500 and garbage each become the entry's error, never the token")
    func claudeFailures() throws {
        let refused = claude("ok", configFolder: folder.file("none"), token: "sk-ant-oat01-WRONG")
        #expect(refused.error == "signed out (the usage endpoint refused the token: HTTP 401)")
        let failing = claude("failing", configFolder: try claudeFolder())
        #expect(failing.error == "could not read usage (HTTP 500 from \(origin)/usage-api/failing/api/oauth/usage)")
        #expect(failing.accountEmail == "you@example.com")
        let garbage = claude("garbage", configFolder: try claudeFolder())
        #expect(garbage.error?.hasPrefix("could not read usage (the answer from") == true)
        let unreachable = ClaudeUsageEndpoint(
            configFolder: try claudeFolder(), home: folder.path, token: nil, baseURL: "http://127.0.0.1:1",
            client: Self.client
        ).collect(now: now)
        #expect(unreachable.error?.hasPrefix("could not read usage (GET http://127.0.0.1:1/api/oauth/usage: ") == true)
        for entry in [refused, failing, garbage, unreachable] {
            #expect(!(entry.error ?? "").contains("EXAMPLE-NOT-A-REAL") && !(entry.error ?? "").contains("WRONG"))
        }
    }

    @Test(
        "codex-api: the windows come from the endpoint with auth.json's token and account, the e-mail from its id_token"
    )
    func codexWindows() throws {
        let home = Self.fixtures + "/codex-home"
        let entry = CodexUsageEndpoint(home: home, baseURL: "\(origin)/usage-api/ok", client: Self.client).collect(
            now: now)
        #expect(entry.error == nil)
        #expect(entry.providerID == "codex" && entry.accountEmail == "dev243@example.com" && entry.plan == "plus")
        #expect(
            entry.session
                == UsageWindow(
                    usedPercent: 14, windowMinutes: 300, resetsAt: Date(timeIntervalSince1970: 1_796_043_600)))
        #expect(
            entry.weekly
                == UsageWindow(
                    usedPercent: 38, windowMinutes: 10_080, resetsAt: Date(timeIntervalSince1970: 1_796_400_000)))

        let signedOut = CodexUsageEndpoint(home: folder.path, baseURL: "\(origin)/usage-api/ok", client: Self.client)
            .collect(now: now)
        #expect(signedOut.error == "signed out (no ChatGPT login in '\(folder.path)/auth.json')")
        let failing = CodexUsageEndpoint(home: home, baseURL: "\(origin)/usage-api/failing", client: Self.client)
            .collect(now: now)
        #expect(failing.error?.hasPrefix("could not read usage (HTTP 500") == true)
        #expect(failing.accountEmail == "dev243@example.com")
        #expect(!(failing.error ?? "").contains("redacted-access"))
    }
}
