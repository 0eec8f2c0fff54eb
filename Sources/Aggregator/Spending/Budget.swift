import Portable
import Snapshots

/// A monthly spending budget: US dollars per calendar month (in the reader's zone) for one provider, or
/// for all of them (`check --budget [PROVIDER=]AMOUNT`, `budget = ...` in the config; docs/cost.md).
public struct Budget: Sendable, Equatable {
    /// Nil: every provider together.
    public var providerID: String?
    public var amountUSD: Double

    public init(providerID: String?, amountUSD: Double) {
        self.providerID = providerID
        self.amountUSD = amountUSD
    }

    /// `claude=200`, `200`, `$200`: nil with why when it is not one.
    public static func parse(_ text: String) -> Result<Budget, BudgetError> {
        var provider: String?
        var amount = Substring(text)
        if let equals = text.firstIndex(of: "=") {
            provider = String(text[..<equals])
            amount = text[text.index(after: equals)...]
        }
        if amount.first == "$" { amount = amount.dropFirst() }
        guard let value = Double(amount), value.isFinite, value > 0, value < 1e12 else {
            return .failure(
                BudgetError("'\(text)' is not a budget; expected [PROVIDER=]AMOUNT in US dollars, as claude=200 or 300")
            )
        }
        if let provider, let problem = ProviderUsage.problem(withProviderID: provider) {
            return .failure(BudgetError("'\(text)': \(problem)"))
        }
        return .success(Budget(providerID: provider, amountUSD: value))
    }

    /// The name a budget goes by: its provider's id, or `all`.
    public var name: String { providerID ?? "all" }
}

public struct BudgetError: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// Where a budget stands this month: what was spent so far (every machine's ledger, the month in the
/// zone asked for) against the amount.
public struct BudgetStanding: Sendable, Equatable {
    public var budget: Budget
    /// `2026-12`: the local month.
    public var month: String
    public var spentUSD: Double
    /// Tokens of models with no price this month: spend the figure leaves out.
    public var unpricedTokens: Int

    public var usedRatio: Double { spentUSD / budget.amountUSD }

    /// Each budget's standing in the local month `now` falls in.
    public static func standings(_ budgets: [Budget], ledgers: [Ledger], zone: ZoneInfo, now: Date) -> [BudgetStanding]
    {
        let question = monthToDate(zone: zone, now: now)
        let table = SpendingTable(ledgers, question: question)
        let month = String(cFormat: "%04ld-%02ld", question.since.year, question.since.month)
        return budgets.map { budget in
            let rows = table.rows.filter { budget.providerID == nil || $0.keys[.provider] == budget.providerID }
            return BudgetStanding(
                budget: budget, month: month, spentUSD: rows.compactMap(\.sums.costUSD).reduce(0, +),
                unpricedTokens: rows.map(\.sums.unpricedTokens).reduce(0, +))
        }
    }

    /// The local month `now` falls in, up to `now`'s day, per provider.
    public static func monthToDate(zone: ZoneInfo, now: Date) -> SpendingQuestion {
        let today = zone.civilTime(atUTC: Int64(now.timeIntervalSince1970.rounded(.down)))
        return SpendingQuestion(
            period: .month, dimensions: [.provider], zone: zone,
            since: CivilTime(year: today.year, month: today.month, day: 1),
            until: CivilTime(year: today.year, month: today.month, day: today.day))
    }

    /// The thresholds a budget's events fire at, in percent of the amount.
    public static let thresholds = [80, 100]
}

extension TransitionEvent {
    /// A budget's event: its month's spend crossed `threshold` percent of it. Its id depends on the
    /// budget, the month and the threshold only, so every machine makes the same one, and it fires once.
    public init(budget standing: BudgetStanding, threshold: Int, at: Date) {
        let who = standing.budget.providerID.map(ProviderNames.displayName(of:)) ?? "All"
        let text = "budget|\(standing.budget.name)|\(standing.month)|\(threshold)"
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        let hex = String(hash, radix: 16)
        id = "evt-" + String(repeating: "0", count: 16 - hex.count) + hex
        kind = .budget
        providerID = standing.budget.providerID ?? "all"
        accountEmail = nil
        remainingPercent = max(0, 100 - standing.usedRatio * 100)
        resetsAt = nil
        title = "\(who) spend at \(threshold)% of the monthly budget"
        let unpriced =
            standing.unpricedTokens > 0 ? " (\(standing.unpricedTokens) tokens of unpriced models not counted)" : ""
        body =
            String(cFormat: "$%.2f spent of $%.2f", standing.spentUSD, standing.budget.amountUSD)
            + " in \(standing.month).\(unpriced)"
        self.at = at
        self.threshold = threshold
        window = "budget"
    }
}

/// Which budget events are due: for each budget, the highest threshold its month's spend crossed that
/// this machine has not fired this month (crossing both at once tells the 100 % only, and marks both).
public enum BudgetAlerts {
    public static func evaluate(_ standings: [BudgetStanding], state: inout AlertState, at now: Date)
        -> [TransitionEvent]
    {
        var events: [TransitionEvent] = []
        for standing in standings {
            let crossed = BudgetStanding.thresholds.filter { standing.usedRatio * 100 >= Double($0) }
            let due = crossed.filter { state.budgetsAlerted["\(standing.budget.name)|\($0)"] != standing.month }
            guard let highest = due.last else { continue }
            for threshold in crossed { state.budgetsAlerted["\(standing.budget.name)|\(threshold)"] = standing.month }
            events.append(TransitionEvent(budget: standing, threshold: highest, at: now))
        }
        return events
    }
}
