import Portable
import Snapshots

extension CodexCollector {
    /// A window length that is the session's (5 hours; anything up to a day).
    static let sessionMinutes = 1...1440
    /// About a week: 4 to 10 days.
    static let weeklyMinutes = (4 * 1440)...(10 * 1440)

    /// The windows of one `rate_limits` object, told apart by `window_minutes` (a weekly-only plan
    /// writes its week as `primary`), by field name only where no length is given; a window of another
    /// length goes to the per-model windows under the limit's name. A reached limit
    /// (`rate_limit_reached_type`, `spend_control_reached`) shows its window used up, a workspace's limit
    /// as a binding limit used up, with the reason.
    /// Windows by their length: the first of about 5 hours is the session, the first of about a week the
    /// weekly window, any other a limit named by `limitName` (or its field) and its period, binding when
    /// it is the account's own (`binding`: Codex's main limit, a credit pool) rather than one model's.
    /// A window without a length takes its field's usual one (`fallbackMinutes`).
    static func place(
        _ windows: [(field: String, window: UsageWindow, fallbackMinutes: Int)], limitName: String?,
        binding: Bool = true
    ) -> (session: UsageWindow?, weekly: UsageWindow?, limits: [Limit]) {
        var result: (session: UsageWindow?, weekly: UsageWindow?, limits: [Limit]) = (nil, nil, [])
        for (field, found, fallbackMinutes) in windows {
            var window = found
            let minutes = window.windowMinutes ?? fallbackMinutes
            window.windowMinutes = minutes
            if sessionMinutes.contains(minutes), result.session == nil {
                result.session = window
            } else if weeklyMinutes.contains(minutes), result.weekly == nil {
                result.weekly = window
            } else {
                let label = limitName.map { $0 == "codex" ? "Codex \(field)" : $0 } ?? "\(minutes)-minute \(field)"
                let limit = Self.limit(label: label, window: window, binding: binding)
                if !result.limits.contains(where: { $0.id == limit.id }) { result.limits.append(limit) }
            }
        }
        return result
    }

    /// Windows of a limit of one model or feature (Codex's `additional_rate_limits`, Spark): each a limit
    /// by its length, never the account's session or week.
    static func featureLimits(_ windows: [UsageWindow], name: String) -> [Limit] {
        var limits: [Limit] = []
        for window in windows {
            let limit = Self.limit(label: name, window: window, binding: false)
            if !limits.contains(where: { $0.id == limit.id }) { limits.append(limit) }
        }
        return limits
    }

    static func limit(label: String, window: UsageWindow, binding: Bool) -> Limit {
        Limit(named: label, window: window, binding: binding)
    }

    static func classify(_ limits: CodexEventDecoder.Limits, at: Date) -> RateLimits? {
        // Resets given as seconds from the event count from its whole second, as Codex computes them.
        let eventSecond = at.timeIntervalSince1970.rounded(.down)
        func window(_ value: CodexEventDecoder.Window?, flatUsed: Double?, flatMinutes: Int?) -> UsageWindow? {
            guard let used = value?.used ?? flatUsed else { return nil }
            var resetsAt: Date?
            if let epoch = value?.resetsAt {
                resetsAt = Date(timeIntervalSince1970: epoch)
            } else if let seconds = value?.resetsInSeconds {
                resetsAt = Date(timeIntervalSince1970: eventSecond + seconds)
            }
            return UsageWindow(usedPercent: used, windowMinutes: value?.minutes ?? flatMinutes, resetsAt: resetsAt)
        }
        let reached = limits.reachedType.map { $0.lowercased() }
        // A window named by its length ("weekly") uses up that window only, wherever it was placed.
        let reachedWindow: String? =
            switch reached {
            case "weekly", "week", "seven_day": "weekly"
            case "session", "five_hour": "session"
            default: nil
            }
        // What a workspace set stops the account, whatever its windows say: a binding limit used up
        // (`accountLimit`); the windows stay as reported. Any other reached type names no window: the
        // account is used up in every window, as before these were known.
        let accountLimit = Self.accountLimit(reached: reached, spendControlReached: limits.spendControlReached == true)
        let accountSpent =
            accountLimit == nil && reached != nil && reached != "primary" && reached != "secondary"
            && reached != "rate_limit_reached" && reachedWindow == nil
        var result = RateLimits(at: at, plan: limits.plan)
        let fields: [(String, UsageWindow?, Int)] = [
            (
                "primary",
                window(limits.primary, flatUsed: limits.flatPrimaryUsed, flatMinutes: limits.flatPrimaryMinutes), 300
            ),
            (
                "secondary",
                window(limits.secondary, flatUsed: limits.flatSecondaryUsed, flatMinutes: limits.flatSecondaryMinutes),
                10080
            ),
        ]
        let placed = place(
            fields.compactMap { field, found, fallback in
                found.map { window in
                    var window = window
                    if accountSpent || reached == field { window.usedPercent = 100 }
                    return (field, window, fallback)
                }
            }, limitName: limits.limitName ?? limits.limitID)
        result.session = placed.session
        result.weekly = placed.weekly
        result.limits = placed.limits
        if reachedWindow == "weekly" { result.weekly?.usedPercent = 100 }
        if reachedWindow == "session" { result.session?.usedPercent = 100 }
        // "The current rate limit": the window nearest its end is the one reached.
        if reached == "rate_limit_reached" {
            if (result.weekly?.usedPercent ?? -1) > (result.session?.usedPercent ?? -1) {
                result.weekly?.usedPercent = 100
            } else {
                result.session?.usedPercent = 100
            }
        }
        if let accountLimit {
            result.limits.removeAll { $0.id == accountLimit.limit.id }
            result.limits.append(accountLimit.limit)
        }
        guard result.session != nil || result.weekly != nil || !result.limits.isEmpty else { return nil }
        if let accountLimit {
            result.reason = "Codex reports \(accountLimit.words)"
        } else if let reached {
            let named = reached == "primary" || reached == "secondary" || reachedWindow != nil
            let what =
                reached == "rate_limit_reached"
                ? "the rate limit" : named ? "the \(reachedWindow ?? reached) limit" : "the \(reached)"
            result.reason = "Codex reports \(what) reached"
        }
        return result
    }

    /// The binding limit a reached type or a reached spend control stands for (Codex's
    /// `RateLimitReachedType`: `workspace_{owner,member}_credits_depleted`,
    /// `workspace_{owner,member}_usage_limit_reached`), used up, and the words for it; nil for any other.
    /// A member's credits or usage limit is this account's own (`credits-monthly`, as `individual_limit`
    /// reads); an owner's is the workspace's (`workspace-monthly`).
    static func accountLimit(reached: String?, spendControlReached: Bool) -> (limit: Limit, words: String)? {
        func usedUp(_ id: String, _ label: String) -> Limit {
            Limit(id: id, label: label, windowMinutes: 43_200, usedPercent: 100, binding: true)
        }
        switch reached {
        case "workspace_member_credits_depleted":
            return (usedUp("credits-monthly", "Credits"), "your workspace credits used up")
        case "workspace_owner_credits_depleted":
            return (usedUp("workspace-monthly", "Workspace credits"), "the workspace's credits used up")
        case "workspace_member_usage_limit_reached":
            return (usedUp("credits-monthly", "Credits"), "your usage limit in the workspace reached")
        case "workspace_owner_usage_limit_reached":
            return (usedUp("workspace-monthly", "Workspace limit"), "the workspace's usage limit reached")
        default:
            guard spendControlReached else { return nil }
            return (usedUp("credits-monthly", "Credits"), "the spend control reached")
        }
    }
}
