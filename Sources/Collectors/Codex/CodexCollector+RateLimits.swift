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
    /// (`rate_limit_reached_type`, `spend_control_reached`) shows its window, or every window for the
    /// account, used up, with the reason.
    /// Windows by their length: the first of about 5 hours is the session, the first of about a week the
    /// weekly window, any other goes to the per-model windows under `limitName` (or its field and length).
    /// A window without a length takes its field's usual one (`fallbackMinutes`).
    static func place(_ windows: [(field: String, window: UsageWindow, fallbackMinutes: Int)], limitName: String?) -> (
        session: UsageWindow?, weekly: UsageWindow?, models: [NamedWindow]
    ) {
        var result: (session: UsageWindow?, weekly: UsageWindow?, models: [NamedWindow]) = (nil, nil, [])
        for (field, found, fallbackMinutes) in windows {
            var window = found
            let minutes = window.windowMinutes ?? fallbackMinutes
            window.windowMinutes = minutes
            if sessionMinutes.contains(minutes), result.session == nil {
                result.session = window
            } else if weeklyMinutes.contains(minutes), result.weekly == nil {
                result.weekly = window
            } else {
                let name = limitName.map { $0 == "codex" ? "\($0) \(field)" : $0 } ?? "\(minutes)-minute \(field)"
                result.models.append(NamedWindow(name: name, window: window))
            }
        }
        return result
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
        let accountSpent =
            (reached != nil && reached != "primary" && reached != "secondary" && reachedWindow == nil)
            || limits.spendControlReached == true
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
        result.models = placed.models
        if reachedWindow == "weekly" { result.weekly?.usedPercent = 100 }
        if reachedWindow == "session" { result.session?.usedPercent = 100 }
        guard result.session != nil || result.weekly != nil || !result.models.isEmpty else { return nil }
        if let reached {
            let named = reached == "primary" || reached == "secondary" || reachedWindow != nil
            result.reason = "Codex reports the \(named ? "\(reachedWindow ?? reached) limit" : reached) reached"
        } else if limits.spendControlReached == true {
            result.reason = "Codex reports the spend control reached"
        }
        return result
    }
}
