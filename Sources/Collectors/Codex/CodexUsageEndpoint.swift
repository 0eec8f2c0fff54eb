import HTTP
import Portable
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
        let auth = JSONValue.read(contentsOf: authPath)
        let account = CodexCollector.account(inAuth: auth)
        let known = ProviderUsage(
            providerID: "codex", accountEmail: account.email, plan: account.plan, lastUpdated: now)
        let tokens = auth?["tokens"]
        guard let token = tokens?["access_token"]?.string, !token.isEmpty else {
            return known.failing("signed out (no ChatGPT login in '\(authPath)')")
        }
        var headers = [("Authorization", "Bearer " + token)]
        if let accountID = tokens?["account_id"]?.string { headers.append(("ChatGPT-Account-Id", accountID)) }
        let endpoint = UsageEndpoint(
            known: known, url: baseURL + "/backend-api/wham/usage", headers: headers, tokenSource: "'\(authPath)'",
            client: client)
        return endpoint.fetch(figures: Self.figures)
    }

    /// `known` with the answer's windows, told apart by `limit_window_seconds` as in the logs (a
    /// weekly-only plan answers its week as `primary_window`), and each of `additional_rate_limits` (Spark)
    /// as limits of that model; the answer's `plan_type` is newer than the login's. Nil when it has no
    /// window.
    static func figures(_ json: JSONValue, onto known: ProviderUsage) -> ProviderUsage? {
        func window(_ key: String, of limit: JSONValue? = nil) -> UsageWindow? {
            guard let object = (limit ?? json)["rate_limit"]?[key], let used = object["used_percent"]?.number
            else { return nil }
            return UsageWindow(
                usedPercent: used,
                windowMinutes: object["limit_window_seconds"]?.number.flatMap(wholeCount).map { $0 / 60 },
                resetsAt: object["reset_at"]?.number.map { Date(timeIntervalSince1970: $0) })
        }
        var entry = known
        let placed = CodexCollector.place(
            [("primary", window("primary_window"), 300), ("secondary", window("secondary_window"), 10080)]
                .compactMap { field, window, fallback in window.map { (field, $0, fallback) } },
            limitName: nil)
        entry.session = placed.session
        entry.weekly = placed.weekly
        var limits = placed.limits
        // Entries of another shape are skipped, never a reason to lose the others.
        for additional in json["additional_rate_limits"]?.array ?? [] {
            guard let name = additional["limit_name"]?.string ?? additional["metered_feature"]?.string else { continue }
            let windows = ["primary_window", "secondary_window"].compactMap { window($0, of: additional) }
            for limit in CodexCollector.featureLimits(windows, name: name)
            where !limits.contains(where: { $0.id == limit.id }) {
                limits.append(limit)
            }
        }
        // A monthly credit limit (Business, Enterprise, Education plans): under `rate_limit` or
        // `spend_control`, amounts as numbers or as texts of numbers.
        if let credits = Self.creditLimit(json["rate_limit"]?["individual_limit"])
            ?? Self.creditLimit(json["spend_control"]?["individual_limit"]),
            !limits.contains(where: { $0.id == credits.id })
        {
            limits.append(credits)
        }
        entry.limits = limits.isEmpty ? nil : limits
        guard entry.session != nil || entry.weekly != nil || !limits.isEmpty else { return nil }
        entry.plan = json["plan_type"]?.string ?? known.plan
        return entry
    }

    /// `individual_limit` as the binding limit `credits-monthly`; nil without a positive, finite limit.
    static func creditLimit(_ value: JSONValue?) -> Limit? {
        func amount(_ value: JSONValue?) -> Double? {
            let number = value?.number ?? value?.string.flatMap { Double($0.trimmingBlanks()) }
            return number.flatMap { $0.isFinite ? $0 : nil }
        }
        guard let value, let cap = amount(value["limit"]), cap > 0 else { return nil }
        let used = amount(value["used"]).map { max(0, $0) }
        let percent =
            amount(value["remaining_percent"]).map { 100 - $0 } ?? used.map { $0 / cap * 100 } ?? 0
        return Limit(
            id: "credits-monthly", label: "Credits", windowMinutes: 43_200, usedPercent: max(0, percent),
            resetsAt: value["resets_at"]?.number.map { Date(timeIntervalSince1970: $0) }, used: used, limit: cap,
            unit: "credits", binding: true)
    }
}
