import Portable
import Snapshots

/// One account after the merge: the winning entry's windows, where they came from, and the token and cost
/// ledgers added up over every device that reported the account.
public struct MergedAccount: Sendable, Equatable {
    public var key: AccountKey
    public var providerID: String
    /// As the winning entry wrote it, trimmed; nil for an entry without an e-mail.
    public var accountEmail: String?
    public var plan: String?
    public var session: WindowStatus?
    public var weekly: WindowStatus?
    public var modelWeekly: [NamedWindowStatus]?
    /// The device whose entry won.
    public var deviceID: DeviceID
    public var deviceName: String
    public var lastUpdated: Date
    /// Every device that reported this account, sorted.
    public var seenOn: [DeviceID]
    /// Tokens summed over `seenOn`; nil when no device reported tokens.
    public var tokens: TokenTotals?
    /// Cost summed over `seenOn`; nil when no device reported cost.
    public var costUSD: CostTotals?
    /// Each reporting device's own ledger, sorted by device.
    public var perDevice: [DeviceLedger]
    /// The winning entry was read longer ago than `staleAfter`.
    public var stale: Bool
    /// The winning entry is dated further in the future than `maxSkew`: every entry of the key was skewed.
    public var clockSkew: Bool
    /// Why figures are missing: the winning entry's own `error`, or that of a newer entry without windows
    /// (signed out on another machine), which never hides the windows shown.
    public var error: String?
    /// The device of that newer error-only entry, when the error is not the winning entry's own.
    public var errorDeviceID: DeviceID?
    /// The windows' history over every device that reported the account; nil when the records were read
    /// without history (or carried none).
    public var history: MergedHistory? = nil
    /// The weekly window's last days by half day over every device (for `status`'s sparkline); nil when
    /// no device carried weekly samples.
    public var weeklyTrend: WeeklyTrend? = nil

    /// Every window of the account by name, in the order reports show them: `session`, `weekly`, then
    /// each per-model window under its own name.
    public var windows: [(name: String, window: WindowStatus)] {
        var windows: [(name: String, window: WindowStatus)] = []
        if let session { windows.append(("session", session)) }
        if let weekly { windows.append(("weekly", weekly)) }
        windows += (modelWeekly ?? []).map { ($0.name, $0.window) }
        return windows
    }

    /// The window with the least left, when the account has any.
    public var tightestWindow: WindowStatus? {
        windows.map(\.window).min { $0.remainingPercent < $1.remainingPercent }
    }

    /// Tokens per UTC date, summed over the devices that reported the account, sorted by date.
    ///
    /// Computed when asked rather than during every merge: no report prints it yet, and summing dates
    /// for every account was a third of the merge's time on a large store.
    public var dailyTokens: [DailyTokens] {
        var sums: [String: (tokens: Int, cost: Double?)] = [:]
        for day in perDevice.flatMap(\.daily) {
            let sum = sums[day.date] ?? (0, nil)
            sums[day.date] = (
                sum.tokens.saturatingAdding(day.tokens), day.costUSD.map { (sum.cost ?? 0) + $0 } ?? sum.cost
            )
        }
        return sums.keys.sorted().map { DailyTokens(date: $0, tokens: sums[$0]!.tokens, costUSD: sums[$0]!.cost) }
    }
}

/// A window with what the merge derives from it.
public struct WindowStatus: Sendable, Equatable {
    public var usedPercent: Double
    /// `100 - usedPercent`, clamped to 0...100.
    public var remainingPercent: Double
    public var level: WindowLevel
    public var windowMinutes: Int?
    public var resetsAt: Date?

    /// The provider's figures this status was derived from.
    public var window: UsageWindow {
        UsageWindow(usedPercent: usedPercent, windowMinutes: windowMinutes, resetsAt: resetsAt)
    }

    public init(_ window: UsageWindow) {
        usedPercent = window.usedPercent
        remainingPercent = window.remainingPercent
        level = WindowLevel(remainingPercent: window.remainingPercent)
        windowMinutes = window.windowMinutes
        resetsAt = window.resetsAt
    }
}

/// A per-model weekly window with its derived figures.
public struct NamedWindowStatus: Sendable, Equatable {
    public var name: String
    public var window: WindowStatus
}

/// Tokens added up over devices.
public struct TokenTotals: Sendable, Equatable {
    /// Sum of the devices' `today`; nil when none reported it.
    public var today: Int?
    public var last30Days: Int?
}

/// Cost added up over devices.
public struct CostTotals: Sendable, Equatable {
    public var today: Double?
    public var last30Days: Double?
}

/// One device's own ledger for an account.
public struct DeviceLedger: Sendable, Equatable {
    public var deviceID: DeviceID
    public var tokensToday: Int?
    public var tokens30Days: Int?
    public var costTodayUSD: Double?
    public var cost30DaysUSD: Double?
    /// The device's own daily entries, as it reported them.
    public var daily: [DailyTokens]
}

/// A device as the store shows it.
public struct DeviceSummary: Sendable, Equatable {
    public var deviceID: DeviceID
    public var deviceName: String
    public var generatedAt: Date
    public var appVersion: String?
    public var providerCount: Int
    /// The record was generated longer ago than `staleAfter`: the machine has stopped publishing.
    public var stale: Bool
}
