import Portable
import Serialization
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
    /// Every other limit of the winning entry (the record format, "Limits").
    public var limits: [LimitStatus]?
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

    // Judged at the merge's moment (`judge(at:)`), and judged anew when the same merge is read at another.

    /// The session, the weekly window or a binding limit is depleted (and not due): nothing can be used.
    public var blocked = false
    /// When the account can be used again: the latest reset among the windows that block it; nil when
    /// it is not blocked, or one of them has no reset time.
    public var availableAt: Date? = nil
    /// The window with the least left among the session, the weekly window and the binding limits that
    /// are not due: `session`, `weekly` or a limit's id; nil when there is none.
    public var tightest: String? = nil

    /// Every window of the account by name, in the order reports show them: `session`, `weekly`, then
    /// each limit under its id.
    public var windows: [(name: String, window: WindowStatus)] {
        var windows: [(name: String, window: WindowStatus)] = []
        if let session { windows.append(("session", session)) }
        if let weekly { windows.append(("weekly", weekly)) }
        windows += (limits ?? []).map { ($0.id, $0.window) }
        return windows
    }

    /// The tightest window (`tightest`) itself.
    public var tightestWindow: WindowStatus? {
        tightest.flatMap { name in windows.first { $0.name == name }?.window }
    }

    /// The non-binding limits that are used up (and not due): what one-line outputs add beside the
    /// tightest window ("Opus used up").
    public var usedUpLimits: [LimitStatus] {
        (limits ?? []).filter { !$0.binding && !$0.window.due && $0.window.level == .depleted }
    }

    /// The non-binding weekly limits as version 1 named them (`opus` for `opus-weekly`): `status --json`
    /// keeps `modelWeekly` for programs written against version 1.
    public var modelWeekly: [NamedWindowStatus]? {
        var models: [NamedWindowStatus] = []
        for limit in limits ?? [] where !limit.binding {
            // Limit ids are ASCII (`[a-z0-9-]+`, checked when read): compared and cut as bytes, which
            // `hasSuffix` and `dropLast` on characters made a tenth of writing a limit.
            var id = limit.id
            let name = id.withUTF8 { bytes -> String? in
                let suffix = "-weekly".utf8
                guard bytes.count >= suffix.count, bytes[(bytes.count - suffix.count)...].elementsEqual(suffix)
                else { return nil }
                return String(decoding: bytes[..<(bytes.count - suffix.count)], as: UTF8.self)
            }
            if let name { models.append(NamedWindowStatus(name: name, window: limit.window)) }
        }
        return models.isEmpty ? nil : models
    }

    /// Judges what depends on the moment: which windows are due, availability, the tightest window, and
    /// today's tokens and cost (only figures of `now`'s UTC date count as today's).
    public mutating func judge(at now: Date) {
        session?.judge(at: now)
        weekly?.judge(at: now)
        if limits != nil {
            for index in limits!.indices { limits![index].window.judge(at: now) }
        }
        // In one pass over the windows that stop the account, without arrays: every account of every
        // merge (and of every memo read) is judged.
        blocked = false
        tightest = nil
        var least = Double.infinity
        var latestReset: Date?
        var resetUnknown = false
        func consider(_ name: @autoclosure () -> String, _ window: WindowStatus) {
            guard !window.due else { return }
            if window.remainingPercent < least {
                least = window.remainingPercent
                tightest = name()
            }
            guard window.level == .depleted else { return }
            blocked = true
            if let reset = window.resetsAt {
                latestReset = max(latestReset ?? reset, reset)
            } else {
                resetUnknown = true
            }
        }
        if let session { consider("session", session) }
        if let weekly { consider("weekly", weekly) }
        if let limits {
            for index in limits.indices where limits[index].binding { consider(limits[index].id, limits[index].window) }
        }
        availableAt = blocked && !resetUnknown ? latestReset : nil
        guard tokens != nil || costUSD != nil else { return }
        let today = DeviceLedger.Day(now)
        if tokens != nil {
            let figures = perDevice.compactMap { $0.tokensToday(on: today) }
            tokens!.today = figures.isEmpty ? nil : figures.reduce(0) { $0.saturatingAdding($1) }
        }
        if costUSD != nil {
            let figures = perDevice.compactMap { $0.costToday(on: today) }
            costUSD!.today = figures.isEmpty ? nil : figures.reduce(0, +)
        }
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
    /// Its reset has passed (`resetsAt <= now`; docs/format.md, "status --json"): its figures are not current, and are
    /// never shown as the window's state (its level is unknown until newer figures arrive). So are figures
    /// read after the reset they name: they were the window's before it (Claude Code hands its status
    /// line the last figures it had, reset or not, and they showed "5h 12% left" an hour past the reset).
    public var due = false

    /// Judges `due` at `now`.
    public mutating func judge(at now: Date) {
        due = resetsAt.map { now >= $0 } ?? false
    }

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

/// A limit of the winning entry with its derived figures.
public struct LimitStatus: Sendable, Equatable {
    public var id: String
    public var label: String
    public var window: WindowStatus
    public var used: Double?
    public var limit: Double?
    public var unit: String?
    public var binding: Bool

    public init(_ limit: Limit) {
        id = limit.id
        label = limit.label
        window = WindowStatus(limit.window)
        used = limit.used
        self.limit = limit.limit
        unit = limit.unit
        binding = limit.binding
    }

    /// The provider's figures this status was derived from.
    public var figures: Limit {
        Limit(
            id: id, label: label, windowMinutes: window.windowMinutes, usedPercent: window.usedPercent,
            resetsAt: window.resetsAt, used: used, limit: limit, unit: unit, binding: binding)
    }
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
    /// When the device read the figures: its `today` is today's only on that UTC date.
    public var lastUpdated: Date
    public var tokensToday: Int?
    public var tokens30Days: Int?
    public var costTodayUSD: Double?
    public var cost30DaysUSD: Double?
    /// The device's own daily entries, as it reported them.
    public var daily: [DailyTokens]

    /// A UTC calendar date: its number since 1970 (compared for every device of every account), and its
    /// `YYYY-MM-DD` as daily entries name it (made only when a daily entry is looked up).
    public struct Day {
        public let number: Int
        public let date: Date

        public init(_ date: Date) {
            self.date = date
            number = Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
        }

        public var text: String { String(RFC3339.format(date).prefix(10)) }
    }

    /// The device's tokens of the UTC date `day`: its `today` when it read them that day, else its daily
    /// entry of that date; nil when it has neither (yesterday's "today" is not today's).
    public func tokensToday(on day: Day) -> Int? {
        if Day(lastUpdated).number == day.number { return tokensToday }
        guard !daily.isEmpty else { return nil }
        let text = day.text
        return daily.first { $0.date == text }?.tokens
    }

    /// The same of cost.
    public func costToday(on day: Day) -> Double? {
        if Day(lastUpdated).number == day.number { return costTodayUSD }
        guard !daily.isEmpty else { return nil }
        let text = day.text
        return daily.first { $0.date == text }?.costUSD
    }
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
