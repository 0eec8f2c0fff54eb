import HTTP
import Portable
import Serialization
import Snapshots

/// `--source claude-api`: the session and weekly windows from Anthropic's OAuth usage endpoint, exact where
/// the logs can only tell that a limit was hit.
///
/// The token is `CLAUDE_CODE_OAUTH_TOKEN`, else the one Claude Code keeps in `.credentials.json` in its
/// config folder; aggctl never refreshes or writes it (an expired token reads as signed out until Claude
/// Code renews it). The account comes from Claude Code's `.claude.json` (`oauthAccount.emailAddress`).
public struct ClaudeUsageEndpoint: Sendable {
    public static let defaultBaseURL = "https://api.anthropic.com"

    /// Claude Code's config folder (`CLAUDE_CONFIG_DIR`, else `~/.claude`).
    public var configFolder: String
    public var home: String
    /// `CLAUDE_CODE_OAUTH_TOKEN`, when set.
    public var token: String?
    /// `AGGCTL_CLAUDE_API_URL`, else the real endpoint's origin.
    public var baseURL: String
    public var client: HTTPClient

    public init(configFolder: String, home: String, token: String?, baseURL: String, client: HTTPClient) {
        self.configFolder = configFolder
        self.home = home
        self.token = token
        self.baseURL = baseURL
        self.client = client
    }

    public init(environment: [String: String], client: HTTPClient) {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? FileSystem.homeDirectory()
        self.init(
            configFolder: environment["CLAUDE_CONFIG_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.claude",
            home: home, token: environment["CLAUDE_CODE_OAUTH_TOKEN"].flatMap { $0.isEmpty ? nil : $0 },
            baseURL: environment["AGGCTL_CLAUDE_API_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultBaseURL,
            client: client)
    }

    /// Whether a token is there to ask with (the environment's, or Claude Code's `.credentials.json`).
    public var hasCredentials: Bool {
        token != nil
            || JSONValue.read(contentsOf: configFolder + "/.credentials.json")?["claudeAiOauth"]?["accessToken"]?.string
                != nil
    }

    public func collect(now: Date) -> ProviderUsage {
        let credentialsPath = configFolder + "/.credentials.json"
        let stored = JSONValue.read(contentsOf: credentialsPath)?["claudeAiOauth"]
        let email = Self.accountEmail(configFolder: configFolder, home: home)
        let known = ProviderUsage(
            providerID: "claude", accountEmail: email,
            plan: Self.plan(tier: stored?["rateLimitTier"]?.string, subscription: stored?["subscriptionType"]?.string),
            lastUpdated: now)
        guard let token = token ?? stored?["accessToken"]?.string, !token.isEmpty else {
            return known.failing("signed out (no token in CLAUDE_CODE_OAUTH_TOKEN or '\(credentialsPath)')")
        }
        if self.token == nil, let expires = stored?["expiresAt"]?.number, expires / 1000 < now.timeIntervalSince1970 {
            return known.failing(
                "signed out (the token in '\(credentialsPath)' expired; Claude Code renews it when it runs)")
        }
        let endpoint = UsageEndpoint(
            known: known, url: baseURL + "/api/oauth/usage",
            headers: [("Authorization", "Bearer " + token), ("anthropic-beta", "oauth-2025-04-20")],
            tokenSource: self.token == nil ? "'\(credentialsPath)'" : "CLAUDE_CODE_OAUTH_TOKEN", client: client)
        return endpoint.fetch(figures: Self.figures)
    }

    /// `known` with the answer's windows and limits (docs/collectors.md has the table):
    /// - `five_hour` is the session and `seven_day` the week (alone for a weekly-only account, whose
    ///   `five_hour` is null);
    /// - the per-model weeks (`seven_day_opus`, `seven_day_sonnet`, each element of `limits[]` of kind
    ///   `weekly_scoped` naming its model) are the limits `<model>-weekly`, and the routines week
    ///   (`seven_day_routines`, `seven_day_cowork`) `routines-weekly`: each stops one model or feature;
    /// - `extra_usage` (a monthly spend cap in minor units of `currency`, USD when none is given) is the
    ///   binding limit `spend-monthly`, in major units.
    /// Nil when it has none of these (then the usage could not be read).
    static func figures(_ json: JSONValue, onto known: ProviderUsage) -> ProviderUsage? {
        func window(_ object: JSONValue?, minutes: Int) -> UsageWindow? {
            guard let object, let used = object["utilization"]?.number else { return nil }
            return UsageWindow(
                usedPercent: used, windowMinutes: minutes, resetsAt: object["resets_at"]?.string.flatMap(RFC3339.parse))
        }
        var entry = known
        entry.session = window(json["five_hour"], minutes: 300)
        entry.weekly = window(json["seven_day"], minutes: 10_080)
        var limits: [Limit] = []
        func add(_ id: String, _ label: String, _ window: UsageWindow?) {
            guard let window, !limits.contains(where: { $0.id == id }) else { return }
            limits.append(
                Limit(
                    id: id, label: label, windowMinutes: window.windowMinutes, usedPercent: window.usedPercent,
                    resetsAt: window.resetsAt, binding: false))
        }
        add("opus-weekly", "Opus", window(json["seven_day_opus"], minutes: 10_080))
        add("sonnet-weekly", "Sonnet", window(json["seven_day_sonnet"], minutes: 10_080))
        // Each element is `{"kind", "group", "percent", "resets_at", "scope": {"model": {"display_name"}}}`
        // (CodexBar's ClaudeOAuthTests assert it; RealWorld/claude-api has their answers). `session` and
        // `weekly_all` repeat the flat windows, and stand in for them when those are null.
        for element in json["limits"]?.array ?? [] {
            guard let used = element["percent"]?.number else { continue }
            func scoped(_ minutes: Int) -> UsageWindow {
                UsageWindow(
                    usedPercent: used, windowMinutes: minutes,
                    resetsAt: element["resets_at"]?.string.flatMap(RFC3339.parse))
            }
            switch element["kind"]?.string {
            case "session": entry.session = entry.session ?? scoped(300)
            case "weekly_all": entry.weekly = entry.weekly ?? scoped(10_080)
            case "weekly_scoped":
                // A scope that names no model is no limit anyone could be told about (CodexBar skips it too).
                guard let name = element["scope"]?["model"]?["display_name"]?.string, !name.isEmpty else { continue }
                let slug = String(
                    String.UnicodeScalarView(
                        name.lowercased().unicodeScalars.map {
                            ("a"..."z").contains($0) || ("0"..."9").contains($0) ? $0 : "-"
                        }))
                add(slug + "-weekly", name.prefix(1).uppercased() + name.dropFirst(), scoped(10_080))
            default: continue
            }
        }
        add(
            "routines-weekly", "Routines",
            window(json["seven_day_routines"], minutes: 10_080) ?? window(json["seven_day_cowork"], minutes: 10_080))
        if let spend = Self.spendLimit(json["extra_usage"]) { limits.append(spend) }
        entry.limits = limits.isEmpty ? nil : limits
        guard entry.session != nil || entry.weekly != nil || !limits.isEmpty else { return nil }
        return entry
    }

    /// `extra_usage` as the binding monthly spend limit: amounts in minor units (cents) of `currency`.
    static func spendLimit(_ extra: JSONValue?) -> Limit? {
        guard let extra, extra["is_enabled"] == .bool(true), let cap = extra["monthly_limit"]?.number, cap > 0
        else { return nil }
        let used = extra["used_credits"]?.number ?? 0
        let percent = extra["utilization"]?.number ?? used / cap * 100
        let currency = extra["currency"]?.string.map { $0.uppercased() } ?? "USD"
        return Limit(
            id: "spend-monthly", label: "Spend", windowMinutes: 43_200, usedPercent: percent, used: used / 100,
            limit: cap / 100, unit: currency, binding: true)
    }

    /// The account Claude Code is signed in with (`oauthAccount.emailAddress` of its `.claude.json`).
    static func accountEmail(configFolder: String, home: String) -> String? {
        [configFolder + "/.claude.json", home + "/.claude.json"].lazy
            .compactMap { JSONValue.read(contentsOf: $0)?["oauthAccount"]?["emailAddress"]?.string }.first
    }

    /// This machine's Claude Code account, found as `--source claude-api` finds it.
    public static func accountEmail(environment: [String: String]) -> String? {
        let home = environment["HOME"] ?? FileSystem.homeDirectory()
        let folder = environment["CLAUDE_CONFIG_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.claude"
        return accountEmail(configFolder: folder, home: home)
    }

    /// "default_claude_max_20x" → "Max 20x"; else the subscription type capitalised ("pro" → "Pro").
    static func plan(tier: String?, subscription: String?) -> String? {
        if let tier, let range = tier.firstRange(of: "max_") {
            return "Max " + tier[range.upperBound...]
        }
        return subscription.map { $0.prefix(1).uppercased() + $0.dropFirst() }
    }
}
