import Aggregator
import Portable
import Snapshots
import Stores

/// The budgets a run watches (`--budget [PROVIDER=]AMOUNT`, repeatable, else the config's `budget = ...`
/// lines) and the zone their months are counted in (`--tz`, else the machine's): docs/cost.md.
struct BudgetSettings {
    static let budget = FlagSpec.option(
        "budget", "[PROVIDER=]AMOUNT", repeatable: true,
        "alert at 80% and 100% of a monthly budget in US dollars (every provider, or one)")

    var budgets: [Budget]
    var zone: ZoneInfo

    init(_ flags: ParsedFlags?, context: RunContext, command: String) throws {
        var settings = flags.map { $0.all(Self.budget).map { Setting(value: $0, source: .flag("budget")) } } ?? []
        if settings.isEmpty { settings = context.configuration.settings("budget") }
        budgets = try settings.map { setting in
            switch Budget.parse(setting.value) {
            case .success(let budget): return budget
            case .failure(let error): throw UsageError("\(setting.source): \(error)", command: command)
            }
        }
        if let names = Optional(budgets.map(\.name)), Set(names).count != names.count {
            throw UsageError("a budget is given twice for one provider (or twice for all)", command: command)
        }
        zone = try ValueParsers.zone(
            flags.flatMap { context.setting(CommonFlags.tz, flags: $0) }, environment: context.environment)
    }

    /// Each budget's standing now, from the store's ledger (its problems are said where the run says them).
    func standings(in store: any RecordStore, now: Date, context: RunContext) throws -> (
        standings: [BudgetStanding], problems: [RecordProblem]
    ) {
        guard !budgets.isEmpty else { return ([], []) }
        let question = BudgetStanding.monthToDate(zone: zone, now: now)
        let read = try context.readLedger(store, months: question.months)
        return (BudgetStanding.standings(budgets, ledgers: read.ledgers, zone: zone, now: now), read.problems)
    }
}
