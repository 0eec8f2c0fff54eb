import Foundation
import Snapshots
import TestSupport

/// The agents' files laid out in a home folder where the agents keep them on Linux, in their own shapes.
enum AgentFiles {
    static let fixtures = Repository.path("Tests/CollectorsTests/Fixtures")

    /// Codex signed in with ChatGPT as `email`: `auth.json` with an `id_token` whose claims name the
    /// account and plan, as Tests/CollectorsTests/Fixtures/codex-home/auth.json (no access token: its usage
    /// answer is not asked).
    static func codexLogin(home: String, email: String, plan: String = "plus") throws {
        func part(_ json: String) -> String {
            Data(json.utf8).base64EncodedString().replacing("+", with: "-").replacing("/", with: "_")
                .replacing("=", with: "")
        }
        let claims = #"{"email": "\#(email)", "https://api.openai.com/auth": {"chatgpt_plan_type": "\#(plan)"}}"#
        let token = part(#"{"alg": "RS256", "typ": "JWT"}"#) + "." + part(claims) + "." + part("signature")
        try write(home + "/.codex/auth.json", #"{"auth_mode": "chatgpt", "tokens": {"id_token": "\#(token)"}}"#)
    }

    /// Appends `token_count` events to a Codex session log of `day`: the shape openai/codex writes
    /// (codex-rs/protocol/src/protocol.rs at edb4efee: `rate_limits.primary`/`secondary` are
    /// `RateLimitWindow {used_percent, window_minutes, resets_at}`, resets in epoch seconds), as in
    /// Tests/CollectorsTests/RealWorld/codex.
    static func codexEvent(
        home: String, at: String, sessionUsed: Double, sessionResets: String, weeklyUsed: Double
    ) throws {
        let day = at.prefix(10).replacing("-", with: "/")
        let path = home + "/.codex/sessions/\(day)/rollout-\(at.prefix(10))T00-00-00-scenario.jsonl"
        let reset = Int(Records.date(sessionResets).timeIntervalSince1970)
        let line =
            #"{"timestamp":"\#(at)","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":1200,"output_tokens":300,"total_tokens":1500}},"rate_limits":{"primary":{"used_percent":\#(sessionUsed),"window_minutes":300,"resets_at":\#(reset)},"secondary":{"used_percent":\#(weeklyUsed),"window_minutes":10080,"resets_at":1796400000}}}}"#
        try FileManager.default.createDirectory(
            atPath: String(path[..<path.lastIndex(of: "/")!]), withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: path) { FileManager.default.createFile(atPath: path, contents: nil) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((line + "\n").utf8))
        try handle.close()
    }

    /// Claude Code signed in as `email`: its logs (Tests/CollectorsTests/Fixtures/claude-home), the account
    /// in `~/.claude.json` (`oauthAccount`, the shape ai-screams/howl's internal/account_test.go at 34dc6d7c
    /// reads `emailAddress` from), and with `token` the credentials file Claude Code keeps, in the shape
    /// steipete/CodexBar's Tests/CodexBarTests/ClaudeOAuthTests.swift at 27c7f334 parses ("parses OAuth
    /// credentials"), its token replaced.
    static func claude(home: String, email: String, token: String? = nil) throws {
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixtures + "/claude-home", toPath: home + "/.claude")
        try write(
            home + "/.claude.json",
            #"{"oauthAccount": {"emailAddress": "\#(email)", "displayName": "Test User", "accountUuid": "12345-abcde"}}"#
        )
        if let token {
            try write(
                home + "/.claude/.credentials.json",
                #"{"claudeAiOauth": {"accessToken": "\#(token)", "refreshToken": "test-refresh", "expiresAt": 4102444800000, "scopes": ["usage:read"], "rateLimitTier": "default_claude_max_20x", "subscriptionType": "pro"}}"#
            )
        }
    }

    static func write(_ path: String, _ text: String) throws {
        try FileManager.default.createDirectory(
            atPath: String(path[..<path.lastIndex(of: "/")!]), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }
}
