import Portable
import Snapshots

/// What `aggctl cost` answers (docs/cost.md): the ledger's rows of every machine summed by period in a
/// time zone, and by provider, model, device or account.
public struct SpendingQuestion: Sendable {
    public enum Period: String, Sendable, CaseIterable {
        case day, week, month
    }

    public enum Dimension: String, Sendable, CaseIterable {
        case provider, model, device, account
    }

    public var period: Period
    public var dimensions: [Dimension]
    public var zone: ZoneInfo
    /// The first and last local days asked about, inclusive.
    public var since: CivilTime
    public var until: CivilTime

    public init(period: Period, dimensions: [Dimension], zone: ZoneInfo, since: CivilTime, until: CivilTime) {
        self.period = period
        self.dimensions = dimensions
        self.zone = zone
        self.since = since
        self.until = until
    }

    /// The UTC moments the local days span: [start, end).
    public var utcRange: (start: Int64, end: Int64) {
        (
            zone.utcSeconds(of: since) ?? since.secondsSinceEpoch,
            zone.utcSeconds(of: until.adding(days: 1)) ?? until.adding(days: 1).secondsSinceEpoch
        )
    }

    /// The UTC months whose ledgers hold those hours.
    public var months: [String] {
        let (start, end) = utcRange
        var months: [String] = []
        var month = Ledger.month(of: Date(timeIntervalSince1970: Double(start)))
        let last = Ledger.month(of: Date(timeIntervalSince1970: Double(end - 1)))
        while month <= last, months.count < 1200 {
            months.append(month)
            guard let next = LedgerCodec.nextMonth(of: month) else { break }
            month = next
        }
        return months
    }

    /// The period a local day is in: `2026-12-06`, `2026-W49` (ISO 8601: weeks start on Monday, and belong
    /// to the year of their Thursday) or `2026-12`.
    public func period(of day: CivilTime) -> String {
        switch period {
        case .day: return String(cFormat: "%04ld-%02ld-%02ld", day.year, day.month, day.day)
        case .month: return String(cFormat: "%04ld-%02ld", day.year, day.month)
        case .week:
            let days = CivilTime.days(year: day.year, month: day.month, day: day.day)
            let mondayBased = (CivilTime.weekday(ofDays: days) + 6) % 7
            let thursday = CivilTime.civil(fromDays: days - Int64(mondayBased) + 3)
            let firstOfYear = CivilTime.days(year: thursday.year, month: 1, day: 1)
            let week =
                (CivilTime.days(year: thursday.year, month: thursday.month, day: thursday.day) - firstOfYear) / 7 + 1
            return String(cFormat: "%04ld-W%02ld", thursday.year, Int(week))
        }
    }
}

/// One row of the answer: a period, the dimensions asked for, and what was spent.
public struct SpendingRow: Sendable, Equatable {
    public var period: String
    /// By dimension asked for (`provider`: the provider id, `account`: the e-mail or "").
    public var keys: [SpendingQuestion.Dimension: String]
    public var sums: SpendingSums
}

/// Tokens by kind and dollars; what had no price counted apart.
public struct SpendingSums: Sendable, Equatable {
    public var inputTokens = 0
    public var outputTokens = 0
    public var cacheWriteTokens = 0
    public var cacheReadTokens = 0
    public var reasoningTokens = 0
    /// The priced rows' dollars; nil when no row was priced.
    public var costUSD: Double?
    /// Tokens of rows without a price.
    public var unpricedTokens = 0

    public init() {}

    public var totalTokens: Int {
        inputTokens.saturatingAdding(outputTokens).saturatingAdding(cacheWriteTokens).saturatingAdding(cacheReadTokens)
    }

    /// Adds another group's sums.
    public mutating func add(_ other: SpendingSums) {
        inputTokens.saturatingAdd(other.inputTokens)
        outputTokens.saturatingAdd(other.outputTokens)
        cacheWriteTokens.saturatingAdd(other.cacheWriteTokens)
        cacheReadTokens.saturatingAdd(other.cacheReadTokens)
        reasoningTokens.saturatingAdd(other.reasoningTokens)
        if let cost = other.costUSD { costUSD = (costUSD ?? 0) + cost }
        unpricedTokens.saturatingAdd(other.unpricedTokens)
    }

    mutating func add(_ row: LedgerRow) {
        inputTokens.saturatingAdd(row.inputTokens)
        outputTokens.saturatingAdd(row.outputTokens)
        cacheWriteTokens.saturatingAdd(row.cacheWriteTokens)
        cacheReadTokens.saturatingAdd(row.cacheReadTokens)
        reasoningTokens.saturatingAdd(row.reasoningTokens ?? 0)
        if let cost = row.costUSD {
            costUSD = (costUSD ?? 0) + cost
        } else {
            unpricedTokens.saturatingAdd(row.totalTokens)
        }
    }
}

/// The answer: rows by period then keys, their total, and the models that had no price.
public struct SpendingTable: Sendable, Equatable {
    public var rows: [SpendingRow] = []
    public var totals = SpendingSums()
    /// Each unpriced model with its tokens, most tokens first.
    public var unpriced: [(model: String, tokens: Int)] = []

    public static func == (a: SpendingTable, b: SpendingTable) -> Bool {
        a.rows == b.rows && a.totals == b.totals && a.unpriced.map(\.model) == b.unpriced.map(\.model)
            && a.unpriced.map(\.tokens) == b.unpriced.map(\.tokens)
    }

    /// Sums `ledgers`' rows (each machine's own: they add up) that fall in the question's days. Rows are
    /// added in one order (device, month, the ledger's own), so the dollars are the same on every run.
    ///
    /// Periods and keys are numbered as they come: a row's period is found by its hour (a thousand
    /// devices' rows share a few thousand hours; formatting a period per row was two thirds of a `cost`),
    /// and its group by five numbers, not by an array of strings.
    public init(_ ledgers: [Ledger], question: SpendingQuestion) {
        let (start, end) = question.utcRange
        var periods: [String] = []
        var periodOfHour: [Int64: Int32] = [:]
        var names: [String] = []
        var numbers: [String: Int32] = [:]
        func number(_ name: String) -> Int32 {
            if let found = numbers[name] { return found }
            names.append(name)
            numbers[name] = Int32(names.count - 1)
            return Int32(names.count - 1)
        }
        var groups: [GroupKey: SpendingSums] = [:]
        var unpricedTokens: [String: Int] = [:]
        let dimensions = question.dimensions
        for ledger in ledgers.sorted(by: { ($0.deviceID, $0.month) < ($1.deviceID, $1.month) }) {
            let device = number(ledger.deviceID.rawValue)
            for row in ledger.rows {
                let seconds = Int64(row.at.timeIntervalSince1970)
                guard seconds >= start, seconds < end else { continue }
                // The hour is placed in the local day its start falls on.
                let hour = seconds / 3600
                let period: Int32
                if let found = periodOfHour[hour] {
                    period = found
                } else {
                    let name = question.period(of: question.zone.civilTime(atUTC: seconds))
                    period = Int32(periods.firstIndex(of: name) ?? periods.count)
                    if Int(period) == periods.count { periods.append(name) }
                    periodOfHour[hour] = period
                }
                var key = GroupKey(period: period)
                for (index, dimension) in dimensions.enumerated() {
                    let value: Int32 =
                        switch dimension {
                        case .provider: number(row.providerID)
                        case .model: number(row.model)
                        case .device: device
                        case .account: number(row.accountEmail ?? "")
                        }
                    key.set(index, value)
                }
                groups[key, default: SpendingSums()].add(row)
                totals.add(row)
                if row.costUSD == nil { unpricedTokens[row.model, default: 0].saturatingAdd(row.totalTokens) }
            }
        }
        rows = groups.map { key, sums in
            var keys: [SpendingQuestion.Dimension: String] = [:]
            for (index, dimension) in dimensions.enumerated() { keys[dimension] = names[Int(key.value(index))] }
            return SpendingRow(period: periods[Int(key.period)], keys: keys, sums: sums)
        }.sorted { left, right in
            if left.period != right.period { return ByteOrder.precedes(left.period, right.period) }
            for dimension in dimensions where left.keys[dimension] != right.keys[dimension] {
                return ByteOrder.precedes(left.keys[dimension] ?? "", right.keys[dimension] ?? "")
            }
            return false
        }
        unpriced = unpricedTokens.map { (model: $0.key, tokens: $0.value) }.sorted {
            $0.tokens != $1.tokens ? $0.tokens > $1.tokens : ByteOrder.precedes($0.model, $1.model)
        }
    }

    /// A group: its period's number and up to four dimensions' values' numbers (-1 where none is asked).
    private struct GroupKey: Hashable {
        var period: Int32
        var first: Int32 = -1
        var second: Int32 = -1
        var third: Int32 = -1
        var fourth: Int32 = -1

        mutating func set(_ index: Int, _ value: Int32) {
            switch index {
            case 0: first = value
            case 1: second = value
            case 2: third = value
            default: fourth = value
            }
        }

        func value(_ index: Int) -> Int32 {
            switch index {
            case 0: first
            case 1: second
            case 2: third
            default: fourth
            }
        }
    }
}
