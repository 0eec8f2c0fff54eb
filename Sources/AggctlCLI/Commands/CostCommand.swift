import Aggregator
import Portable
import Snapshots
import Stores

/// `aggctl cost [daily|weekly|monthly]`: what every machine spent, from the store's ledger (docs/cost.md).
enum CostCommand {
    static let name = "cost"
    static let summary = "What every machine spent, in tokens and dollars, by day, week or month, from the ledger."
    static let since = FlagSpec.option(
        "since", "DATE", "the first local day (YYYY-MM-DD; default: 30 days, or 12 months, back)")
    static let until = FlagSpec.option("until", "DATE", "the last local day (YYYY-MM-DD; default: today)")
    static let by = FlagSpec.option(
        "by", "WHAT", repeatable: true, choices: SpendingQuestion.Dimension.allCases.map(\.rawValue),
        "one row per provider (default), model, device or account; repeat for combinations")
    static let csv = FlagSpec.toggle("csv", "print the rows as CSV (RFC 4180) instead of a table")
    static let flags = [
        CommonFlags.store, CommonFlags.keyFile, CommonFlags.requireEncrypted, since, until, CommonFlags.tz, by,
        CommonFlags.json,
        csv, CommonFlags.now,
    ]
    static let details = """
        Each machine's publish keeps what its agents' logs say was spent, by UTC hour and model, in the store's \
        ledger; cost sums every machine's. An hour counts on the local day its start falls on in --tz (in a \
        zone whose offset is not whole hours, up to 30 or 45 minutes of it may belong to the next day). \
        Weeks start on Monday (ISO 8601). A model without a price counts its tokens, never $0: it is named \
        under the table, and its tokens are the rows' unpricedTokens. --json prints {"tz", "period", "since", \
        "until", "rows", "totals", "unpriced", "problems"}.
        """

    static let command = Command(
        name: name, summary: summary, flags: flags, details: details, takesArgument: true,
        argumentName: "daily|weekly|monthly", maximumArguments: 1
    ) { flags, context in
        try run(flags, context: context)
    }

    static func run(_ flags: ParsedFlags, context: RunContext) throws -> ExitStatus {
        let period: SpendingQuestion.Period
        switch flags.arguments.first ?? "daily" {
        case "daily": period = .day
        case "weekly": period = .week
        case "monthly": period = .month
        case let other:
            throw UsageError("'\(other)' is not a period; expected daily, weekly or monthly", command: name)
        }
        if flags.isSet(CommonFlags.json) && flags.isSet(csv) {
            throw UsageError("--json and --csv print different things; give one", command: name)
        }
        let location = try context.storeLocation(flags, command: name)
        let now = try flags.setting(CommonFlags.now).map(ValueParsers.date) ?? context.clock()
        let zone = try ValueParsers.zone(
            context.setting(CommonFlags.tz, flags: flags), environment: context.environment)
        let today = zone.civilTime(atUTC: Int64(now.timeIntervalSince1970.rounded(.down)))
        let todayDate = CivilTime(year: today.year, month: today.month, day: today.day)
        let last = try flags.setting(until).map(Self.day) ?? todayDate
        var first = try flags.setting(since).map(Self.day)
        if first == nil {
            first =
                period == .month
                ? CivilTime(year: last.year, month: last.month, day: 1).adding(months: -11) : last.adding(days: -29)
        }
        guard let first, first.secondsSinceEpoch <= last.secondsSinceEpoch else {
            throw UsageError("--since is after --until: no days to count", command: name)
        }
        let question = SpendingQuestion(
            period: period, dimensions: Self.dimensions(flags.all(by)), zone: zone, since: first, until: last)
        let store = try context.openStore(location)
        let read: (ledgers: [Ledger], problems: [RecordProblem])
        do {
            read = try context.readLedger(store, months: question.months)
        } catch let error as StoreError {
            throw CommandFailure(error.description)
        }
        let table = SpendingTable(read.ledgers, question: question)
        let output = CostOutput(question: question, table: table, problems: read.problems)
        if flags.isSet(CommonFlags.json) {
            context.console.output.write(output.json())
        } else if flags.isSet(csv) {
            context.console.output.write(output.csv())
        } else {
            context.console.printRendered(output.table(color: context.console.usesColor))
            StatusCommand.report(read.problems, on: context.console)
        }
        return .success
    }

    /// The dimensions asked for, each once, in the order given; the provider by default.
    static func dimensions(_ values: [String]) -> [SpendingQuestion.Dimension] {
        var seen: [SpendingQuestion.Dimension] = []
        for value in values {
            if let dimension = SpendingQuestion.Dimension(rawValue: value), !seen.contains(dimension) {
                seen.append(dimension)
            }
        }
        return seen.isEmpty ? [.provider] : seen
    }

    /// A `YYYY-MM-DD` local day.
    static func day(_ setting: Setting) throws -> CivilTime {
        let parts = setting.value.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            CivilTime(year: year, month: month, day: day).isValid
        else {
            throw UsageError("\(setting.source): '\(setting.value)' is not a day (YYYY-MM-DD)", command: name)
        }
        return CivilTime(year: year, month: month, day: day)
    }
}
