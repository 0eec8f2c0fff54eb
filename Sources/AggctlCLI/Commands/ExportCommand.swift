import Aggregator
import Portable
import Snapshots
import Stores

/// `aggctl export`: the merged view for other tools; `--format prometheus` for node_exporter's textfile
/// collector or a scrape.
enum ExportCommand {
    static let name: String = "export"
    static let summary = "Print the merged view for other tools: Prometheus text exposition, or CSV for spreadsheets."
    static let formats = OutputFormats.offered(by: .export)
    static let format = FlagSpec.option(
        "format", "FORMAT", choices: formats.map(\.name),
        formats.map { "\($0.name) (\($0.summary))" }.joined(separator: ", ") + "; required")
    static let table = FlagSpec.option(
        "table", "TABLE", choices: Array(Set(formats.flatMap(\.tables))).sorted(),
        "with csv: accounts (a row per account and window; default) or daily (tokens and cost per device and day)")
    static let out = FlagSpec.option(
        "out", "FILE",
        "write to FILE atomically (a temporary name in its folder, then a rename; a new path or a regular file) instead of stdout"
    )
    static let flags = [
        CommonFlags.store, CommonFlags.keyFile, CommonFlags.requireEncrypted, format, table, out, BudgetSettings.budget,
        CommonFlags.tz, CommonFlags.now, CommonFlags.staleAfter, CommonFlags.maxSkew,
    ]

    static let details = """
        The metrics of docs/prometheus.md, gauges without timestamps. For node_exporter's textfile collector:
          aggctl export --format prometheus --out /var/lib/prometheus/node-exporter/aggctl.prom
        from cron; node_exporter reads only files ending in .prom, so the temporary name is never read.
        Exit 1 when the store cannot be read or the file cannot be written.
        """

    static let command = Command(name: name, summary: summary, flags: flags, details: details) { flags, context in
        try run(flags, context: context)
    }

    /// `export`'s options, settled before anything is read.
    struct Options {
        var merge: MergeSettings
        var out: OutputTarget
        var format: any OutputFormat
        /// The format's table: `--table`, else its first; "" for a format with one table.
        var table: String
        var budgets: BudgetSettings

        init(_ flags: ParsedFlags, context: RunContext) throws {
            let names = ExportCommand.formats.map(\.name)
            guard let chosen = flags.value(ExportCommand.format) else {
                throw UsageError(
                    "export needs " + names.map { "--format \($0)" }.joined(separator: " or "), command: name)
            }
            guard let format = OutputFormats.named(chosen, for: .export) else {
                throw UsageError(
                    "--format: '\(chosen)' is not a format; expected \(names.joined(separator: " or "))", command: name)
            }
            self.format = format
            switch (flags.value(ExportCommand.table), format.tables.first) {
            case (nil, let first): table = first ?? ""
            case (let given?, nil):
                let withTables = ExportCommand.formats.filter { !$0.tables.isEmpty }.map { "--format \($0.name)" }
                throw UsageError(
                    "--table '\(given)' is for \(withTables.joined(separator: " or ")); \(chosen) has one table",
                    command: name)
            case (let given?, _?):
                guard format.tables.contains(given) else {
                    throw UsageError(
                        "--table: '\(given)' is not a table of \(chosen); expected "
                            + format.tables.joined(separator: " or "), command: name)
                }
                table = given
            }
            out =
                try flags.value(ExportCommand.out).map { try OutputTarget.parse($0, command: name) } ?? .standardOutput
            merge = try MergeSettings(flags, context: context, command: name)
            budgets = try BudgetSettings(flags, context: context, command: name)
        }
    }

    static func run(_ flags: ParsedFlags, context: RunContext) throws -> ExitStatus {
        let options = try Options(flags, context: context)
        let (result, saveCache) = try context.merged(
            options.merge, history: options.format.history(table: options.table))
        defer { saveCache() }
        // Freed at exit, not here: freeing a merge of thousands of accounts was a tenth of an export.
        context.keepUntilExit(result)
        var problems = result.problems
        var spending: MonthSpending?
        if options.format.showsSpending {
            let read = try monthSpending(options, now: result.now, context: context)
            spending = read.spending
            problems += read.problems
        }
        try options.out.write(
            Data(options.format.render(result, table: options.table, spending: spending)), console: context.console)
        StatusCommand.report(problems, on: context.console)
        return .success
    }

    /// Every machine's month so far from the ledger, by provider, account and model, and the budgets'.
    static func monthSpending(_ options: Options, now: Date, context: RunContext) throws
        -> (spending: MonthSpending, problems: [RecordProblem])
    {
        var question = BudgetStanding.monthToDate(zone: options.budgets.zone, now: now)
        question.dimensions = [.provider, .account, .model]
        do {
            let read = try context.readLedger(try context.openStore(options.merge.location), months: question.months)
            let standings = BudgetStanding.standings(
                options.budgets.budgets, ledgers: read.ledgers, zone: options.budgets.zone, now: now)
            return (
                MonthSpending(table: SpendingTable(read.ledgers, question: question), budgets: standings), read.problems
            )
        } catch let error as StoreError {
            throw CommandFailure(error.description)
        }
    }
}
