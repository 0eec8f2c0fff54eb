import HTTP
import Portable
import Serialization
import Snapshots

/// `--source copilot-api`: GitHub Copilot's monthly premium-requests quota, from the endpoint the editors
/// use (`GET /copilot_internal/user`), with the GitHub CLI's token.
///
/// The token: `GH_TOKEN`, else `GITHUB_TOKEN`, else `oauth_token` of `github.com` in the GitHub CLI's
/// `hosts.yml` (`$GH_CONFIG_DIR`, else `~/.config/gh`; a CLI keeping its token in the system keyring
/// needs one of the variables). The quota (`quota_snapshots.premium_interactions`) becomes the limit
/// `premium-monthly` ("Premium requests", binding: used up, nothing more can be asked), from the last
/// reset to `quota_reset_date` (a date, read as UTC midnight). An unlimited plan has no limit, and its
/// entry says so.
public struct CopilotUsageEndpoint: Sendable {
    public static let defaultBaseURL = "https://api.github.com"

    public var ghConfigFolder: String
    public var environment: [String: String]
    /// `AGGCTL_COPILOT_API_URL`, else GitHub's API.
    public var baseURL: String
    public var client: HTTPClient

    public init(environment: [String: String], client: HTTPClient) {
        let home = environment["HOME"] ?? FileSystem.homeDirectory()
        ghConfigFolder = environment["GH_CONFIG_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config/gh"
        self.environment = environment
        baseURL = environment["AGGCTL_COPILOT_API_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultBaseURL
        self.client = client
    }

    public func collect(now: Date) -> ProviderUsage {
        let hosts = ghConfigFolder + "/hosts.yml"
        let stored = Self.hostsEntry(atPath: hosts)
        let known = ProviderUsage(providerID: "copilot", accountEmail: stored.user, lastUpdated: now)
        let fromEnvironment = ["GH_TOKEN", "GITHUB_TOKEN"].lazy.compactMap { name in
            environment[name].flatMap { $0.isEmpty ? nil : (name, $0) }
        }.first
        guard let token = fromEnvironment?.1 ?? stored.token else {
            return known.failing("signed out (no token in GH_TOKEN, GITHUB_TOKEN or '\(hosts)')")
        }
        let endpoint = UsageEndpoint(
            known: known, url: baseURL + "/copilot_internal/user", headers: [("Authorization", "token " + token)],
            tokenSource: fromEnvironment?.0 ?? "'\(hosts)'", client: client)
        return endpoint.fetch { json, known in Self.figures(json, onto: known, now: now) }
    }

    /// `known` with the answer's monthly quotas as limits; nil when the answer has no quota at all.
    ///
    /// Each of `quota_snapshots` (`premium_interactions`, `chat`, `completions`) is a limit of the month
    /// up to `quota_reset_date`: premium requests binding (the quota of paid plans), chat and completions
    /// each stopping its feature. A quota is left out when it is unlimited or a placeholder (an entitlement
    /// of 0: Business plans billed by tokens report every quota so, which is no usage at all), and its
    /// percent is taken from `percent_remaining` (below 0 is overage), else from `remaining` of
    /// `entitlement`, else from `limited_user_quotas` of `monthly_quotas` (older Free answers).
    static func figures(_ json: JSONValue, onto known: ProviderUsage, now: Date) -> ProviderUsage? {
        var entry = known
        if let login = json["login"]?.string, !login.isEmpty { entry.accountEmail = login }
        entry.plan = json["copilot_plan"]?.string.map(Self.planName) ?? known.plan
        let reset = json["quota_reset_date"]?.string.flatMap { RFC3339.parse($0 + "T00:00:00Z") }
        var minutes = 30 * 1440
        if let reset {
            // The month before the reset, in UTC calendar days (a reset on the 31st starts on the last day
            // of the month before).
            let end = ZoneInfo.utc.civilTime(at: reset)
            if let start = ZoneInfo.utc.date(of: end.adding(months: -1)) {
                minutes = Int(reset.timeIntervalSince(start) / 60)
            }
        }
        func amount(_ value: JSONValue?) -> Double? {
            let number = value?.number ?? value?.string.flatMap { Double($0.trimmingBlanks()) }
            return number.flatMap { $0.isFinite ? $0 : nil }
        }
        let snapshots = json["quota_snapshots"]
        var limits: [Limit] = []
        var unlimited = false
        var placeholders = false
        for (key, id, label, binding) in [
            ("premium_interactions", "premium-monthly", "Premium requests", true),
            ("chat", "chat-monthly", "Chat", false), ("completions", "completions-monthly", "Completions", false),
        ] {
            let quota = snapshots?[key]
            if quota?["unlimited"] == .bool(true) {
                unlimited = true
                continue
            }
            var entitlement = amount(quota?["entitlement"])
            var remaining = amount(quota?["quota_remaining"]) ?? amount(quota?["remaining"])
            var percentLeft = amount(quota?["percent_remaining"])
            if entitlement == 0 {
                placeholders = true
                continue
            }
            if percentLeft == nil, let total = entitlement, total > 0, let left = remaining {
                percentLeft = left / total * 100
            }
            if percentLeft == nil, let total = amount(json["monthly_quotas"]?[key]), total > 0,
                let left = amount(json["limited_user_quotas"]?[key])
            {
                (entitlement, remaining, percentLeft) = (total, left, left / total * 100)
            }
            guard let percentLeft else { continue }
            limits.append(
                Limit(
                    id: id, label: label, windowMinutes: minutes, usedPercent: 100 - percentLeft, resetsAt: reset,
                    used: entitlement.flatMap { total in remaining.map { total - $0 } }, limit: entitlement,
                    unit: "requests", binding: binding))
        }
        guard limits.isEmpty else {
            entry.limits = limits
            return entry
        }
        if placeholders || json["token_based_billing"] == .bool(true) {
            entry.error = "billed by tokens: no request quota"
            return entry
        }
        if unlimited {
            entry.error = "unlimited premium requests: no quota window"
            return entry
        }
        return nil
    }

    /// `individual_pro` as `Individual Pro`.
    static func planName(_ plan: String) -> String {
        plan.split(separator: "_").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ")
    }

    /// The `github.com` entry of the GitHub CLI's `hosts.yml`: its `oauth_token` and `user`. Read as the
    /// CLI writes it (a key a line, two levels); anything else is ignored.
    static func hostsEntry(atPath path: String) -> (token: String?, user: String?) {
        guard let data = FileSystem.contents(of: path) else { return (nil, nil) }
        var inGitHub = false
        var token: String?
        var user: String?
        for raw in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let line = String(raw)
            let indented = line.first == " " || line.first == "\t"
            let trimmed = line.trimmingBlanks()
            if !indented {
                inGitHub = trimmed == "github.com:"
                continue
            }
            guard inGitHub, let colon = trimmed.firstIndex(of: ":") else { continue }
            let key = trimmed[..<colon]
            var value = trimmed[trimmed.index(after: colon)...].trimmingBlanks()
            if value.count >= 2, value.first == value.last, value.first == "\"" || value.first == "'" {
                value = String(value.dropFirst().dropLast())
            }
            if key == "oauth_token", !value.isEmpty { token = value }
            if key == "user", !value.isEmpty { user = value }
        }
        return (token, user)
    }
}
