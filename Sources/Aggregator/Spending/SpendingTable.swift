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
    /// added in one order (period, keys, then the ledger's own), so the dollars are the same on every run.
    public init(_ ledgers: [Ledger], question: SpendingQuestion) {
        let (start, end) = question.utcRange
        var byKey: [[String]: (period: String, keys: [SpendingQuestion.Dimension: String], sums: SpendingSums)] = [:]
        var unpricedTokens: [String: Int] = [:]
        for ledger in ledgers.sorted(by: {
            $0.deviceID < $1.deviceID || ($0.deviceID == $1.deviceID && $0.month < $1.month)
        }) {
            for row in ledger.rows {
                let seconds = Int64(row.at.timeIntervalSince1970)
                guard seconds >= start, seconds < end else { continue }
                // The hour is placed in the local day its start falls on.
                let period = question.period(of: question.zone.civilTime(atUTC: seconds))
                var keys: [SpendingQuestion.Dimension: String] = [:]
                for dimension in question.dimensions {
                    switch dimension {
                    case .provider: keys[dimension] = row.providerID
                    case .model: keys[dimension] = row.model
                    case .device: keys[dimension] = ledger.deviceID.rawValue
                    case .account: keys[dimension] = row.accountEmail ?? ""
                    }
                }
                let key = [period] + question.dimensions.map { keys[$0]! }
                var entry = byKey[key] ?? (period, keys, SpendingSums())
                entry.sums.add(row)
                byKey[key] = entry
                totals.add(row)
                if row.costUSD == nil { unpricedTokens[row.model, default: 0].saturatingAdd(row.totalTokens) }
            }
        }
        rows = byKey.keys.sorted { ByteOrder.precedes($0.joined(separator: "\u{0}"), $1.joined(separator: "\u{0}")) }
            .map {
                let entry = byKey[$0]!
                return SpendingRow(period: entry.period, keys: entry.keys, sums: entry.sums)
            }
        unpriced = unpricedTokens.map { (model: $0.key, tokens: $0.value) }.sorted {
            $0.tokens != $1.tokens ? $0.tokens > $1.tokens : ByteOrder.precedes($0.model, $1.model)
        }
    }
}
