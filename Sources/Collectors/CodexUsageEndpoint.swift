import Foundation
import HTTP
import Snapshots

/// `--source codex-api`: the session and weekly windows from ChatGPT's Codex usage endpoint, with the
/// tokens Codex keeps in `auth.json` (never refreshed or written by aggctl).
public struct CodexUsageEndpoint: Sendable {
    public static let defaultBaseURL = "https://chatgpt.com"

    /// `CODEX_HOME`, else `~/.codex`.
    public var home: String
    /// `AGGCTL_CODEX_API_URL`, else the real endpoint's origin.
    public var baseURL: String
    public var client: HTTPClient

    public init(home: String, baseURL: String, client: HTTPClient) {
        self.home = home
        self.baseURL = baseURL
        self.client = client
    }

    public init(environment: [String: String], client: HTTPClient) {
        self.init(
            home: CodexCollector.defaultHome(environment: environment),
            baseURL: environment["AGGCTL_CODEX_API_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultBaseURL,
            client: client)
    }

    public func collect(now: Date) -> ProviderUsage {
        let authPath = home + "/auth.json"
        let account = CodexCollector(home: home).accountFromAuth()
        let tokens = ClaudeUsageEndpoint.readJSON(authPath)?["tokens"]
        guard let token = tokens?["access_token"]?.string, !token.isEmpty else {
            return UsageEndpoint.failure(
                "codex", "signed out (no ChatGPT login in '\(authPath)')", now: now, email: account.email,
                plan: account.plan)
        }
        var headers = [("Authorization", "Bearer " + token)]
        if let accountID = tokens?["account_id"]?.string { headers.append(("ChatGPT-Account-Id", accountID)) }
        let endpoint = UsageEndpoint(
            providerID: "codex", url: baseURL + "/backend-api/wham/usage", headers: headers, client: client)
        return endpoint.fetch(now: now, email: account.email, plan: account.plan) { json in
            Self.entry(json, now: now, email: account.email, plan: account.plan)
        }
    }

    /// `primary_window` is the session window, `secondary_window` the weekly one; the answer's `plan_type` is
    /// newer than the login's.
    static func entry(_ json: JSONValue, now: Date, email: String?, plan: String?) -> ProviderUsage? {
        func window(_ key: String) -> UsageWindow? {
            guard let object = json["rate_limit"]?[key], let used = object.percent("used_percent") else { return nil }
            return UsageWindow(
                usedPercent: used, windowMinutes: object["limit_window_seconds"]?.number.map { Int($0) / 60 },
                resetsAt: object["reset_at"]?.number.map { Date(timeIntervalSince1970: $0) })
        }
        let session = window("primary_window")
        let weekly = window("secondary_window")
        guard session != nil || weekly != nil else { return nil }
        return ProviderUsage(
            providerID: "codex", accountEmail: email, plan: json["plan_type"]?.string ?? plan, lastUpdated: now,
            session: session, weekly: weekly)
    }
}
