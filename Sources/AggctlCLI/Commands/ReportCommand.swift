import Aggregator
import Portable
import Serialization
import Snapshots
import Stores

/// `aggctl report`: the merged view with its history as one self-contained HTML page.
enum ReportCommand {
    static let name: String = "report"
    static let summary = "Write one self-contained HTML page: each account's window lines, pace, daily tokens and cost."
    static let out = FlagSpec.option(
        "out", "FILE.html", "where to write the page (atomically; a new path or a regular file), - for stdout; required"
    )
    static let days = FlagSpec.option(
        "days", "N",
        "days of the session and weekly lines (at most 56) and of the spending part (at least 30), 1-90 (default 7)")
    static let flags = [
        CommonFlags.store, CommonFlags.keyFile, CommonFlags.requireEncrypted, out, days, CommonFlags.tz,
        CommonFlags.now,
        CommonFlags.staleAfter, CommonFlags.maxSkew,
    ]
    static let details = """
        The page has no script and loads nothing: inline CSS and SVG, readable in light and dark mode and on
        a phone. Weekly forecasts from earlier weeks appear once 3 weeks of history exist: the merged weekly
        history each report reads is also kept for 8 weeks in the state directory (archive/), since
        records carry 14 days. Exit 1 when the store cannot be read or the page cannot be written.
        """

    static let command = Command(name: name, summary: summary, flags: flags, details: details) { flags, context in
        try run(flags, context: context)
    }

    /// `--days` as far as the spending part goes; the window lines show at most `maximumLineDays`.
    static let maximumDays = 90
    static let maximumLineDays = 56

    /// The spending part: the last 30 days (`--days` more, up to 90) of every machine's ledger, in the
    /// machine's zone (`--tz`), with the config's budgets; nil when the store has no ledger yet.
    static func spending(_ options: Options, now: Date, context: RunContext) throws -> ReportSpending? {
        try spending(in: options.merge.location, days: options.days, zone: options.zone, now: now, context: context)
    }

    /// The spending part of `days` days (at least 30) in `zone` (nil: the config's `tz`, else the machine's).
    static func spending(
        in location: StoreLocation, days: Int, zone: ZoneInfo?, now: Date, context: RunContext,
        tellingProblems: Bool = true
    ) throws -> ReportSpending? {
        let count = max(30, days)
        let budgets = try BudgetSettings(nil, context: context, command: name)
        let zone = zone ?? budgets.zone
        // The months the bars' days fall in, and the whole of this one for the budgets.
        var months = BudgetStanding.monthToDate(zone: zone, now: now)
        let spanStart = months.until.adding(days: -(count - 1))
        if spanStart.secondsSinceEpoch < months.since.secondsSinceEpoch { months.since = spanStart }
        let read: (ledgers: [Ledger], problems: [RecordProblem])
        do {
            read = try context.readLedger(try context.openStore(location), months: months.months)
        } catch let error as StoreError {
            throw CommandFailure(error.description)
        }
        // `serve` reads every --refresh: its months' problems are not said each time.
        if tellingProblems { StatusCommand.report(read.problems, on: context.console) }
        guard !read.ledgers.isEmpty else { return nil }
        let standings = BudgetStanding.standings(budgets.budgets, ledgers: read.ledgers, zone: zone, now: now)
        return ReportSpending(ledgers: read.ledgers, budgets: standings, zone: zone, now: now, count: count)
    }

    /// `report`'s options, settled before anything is read.
    struct Options {
        var merge: MergeSettings
        var out: OutputTarget
        var days: Int
        /// `--tz`: the zone of the spending part's days.
        var zone: ZoneInfo?

        init(_ flags: ParsedFlags, context: RunContext) throws {
            guard let out = flags.value(ReportCommand.out) else {
                throw UsageError("report needs --out FILE.html, the page to write", command: name)
            }
            self.out = try OutputTarget.parse(out, command: name)
            days = try flags.value(ReportCommand.days).map(parseDays) ?? 7
            zone = try context.setting(CommonFlags.tz, flags: flags).map {
                try ValueParsers.zone($0, environment: context.environment)
            }
            merge = try MergeSettings(flags, context: context, command: name)
        }
    }

    static func run(_ flags: ParsedFlags, context: RunContext) throws -> ExitStatus {
        let options = try Options(flags, context: context)
        let (out, days) = (options.out, options.days)
        let (result, finish) = try context.merged(options.merge, history: .full)
        defer { finish() }
        StatusCommand.report(result.problems, on: context.console)

        let weekly = archived(
            result, store: options.merge.location.displayName, maxSkew: options.merge.maxSkew, context: context)
        var forecasts: [String: WeeklyForecast] = [:]
        for account in result.accounts {
            let key = account.key.description
            guard let current = account.weekly, let history = weekly[key] else { continue }
            forecasts[key] = WeeklyForecast.make(history: history, current: current, now: result.now)
        }
        var page = ReportPage(
            result: result, days: min(days, maximumLineDays), forecasts: forecasts,
            zone: ZoneInfo.local(environment: context.environment))
        page.spending = try spending(options, now: result.now, context: context)
        try out.stream(console: context.console) { sink in
            page.write(to: ByteOutput(capacity: ByteOutput.streamingPiece + 64 * 1024, sink: sink))
        }
        if case .file(let path) = out, context.console.errorsAreTerminal {
            context.console.note("wrote the report of \(result.accounts.count) account(s) to '\(path)'")
        }
        return .success
    }

    /// Each account's weekly history as far back as this machine's archive knows it, the store's merged
    /// history added. An archive that cannot be saved is a warning: the page is drawn all the same.
    static func archived(
        _ result: MergeResult, store: String, maxSkew: TimeInterval, context: RunContext
    ) -> [String: [UsageSample]] {
        let path = KeptFile.weeklyArchive.path(in: context.stateDirectory + "/archive", store: store)
        var archive = HistoryArchive(store: store)
        switch HistoryArchive.load(from: path, store: store) {
        case .fresh: break
        case .loaded(let loaded): archive = loaded
        case .damaged(let aside):
            context.console.warn("archive '\(path)' is damaged; set aside as '\(aside)', starting afresh")
        }
        let before = archive
        let known = archive.absorb(result.accounts, now: result.now, maxSkew: maxSkew)
        // A store that did not change since the last report leaves the archive as it was: not written again.
        guard archive != before else { return known }
        do {
            try archive.save(to: path)
        } catch {
            context.console.warn("cannot keep the weekly archive '\(path)': \(error)")
        }
        return known
    }

    static func parseDays(_ text: String) throws -> Int {
        guard let days = Int(text), (1...maximumDays).contains(days) else {
            throw UsageError(
                "--days: '\(text)' is not a number of days; expected a whole number from 1 to \(maximumDays)",
                command: name)
        }
        return days
    }
}
