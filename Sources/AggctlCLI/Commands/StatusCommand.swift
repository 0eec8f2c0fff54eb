import Aggregator
import Portable
import Serialization
import Snapshots
import Stores
import TextSafety

/// `aggctl status`: the merged view of every device's figures.
enum StatusCommand {
    static let name: String = "status"
    static let summary = "Merge every device's record and show each account's quota, and where each figure came from."
    static let format = FlagSpec.option(
        "format", "FORMAT", choices: Format.names,
        "table (default), json, "
            + OutputFormats.offered(by: .status).map { "\($0.name) (\($0.summary))" }.joined(separator: ", "))
    static let provider = FlagSpec.option("provider", "P", "only this provider's accounts (claude, codex, ...)")
    static let account = FlagSpec.option("account", "A", "only this account (its e-mail)")
    static let flags = [
        CommonFlags.store, CommonFlags.keyFile, CommonFlags.requireEncrypted, CommonFlags.json, format, provider,
        account, CommonFlags.now, CommonFlags.staleAfter,
        CommonFlags.maxSkew,
    ]

    /// The table, JSON, or one of the registered formats (`OutputFormats`: the status bars' lines).
    enum Format: Equatable {
        case table, json
        case bar(String)

        static var names: [String] { ["table", "json"] + OutputFormats.offered(by: .status).map(\.name) }

        init?(name: String) {
            switch name {
            case "table": self = .table
            case "json": self = .json
            default:
                guard OutputFormats.named(name, for: .status) != nil else { return nil }
                self = .bar(name)
            }
        }

        var name: String {
            switch self {
            case .table: "table"
            case .json: "json"
            case .bar(let name): name
            }
        }
    }
    static let details = """
        A record that cannot be read is reported (on stderr, or under "problems" with --json) and the rest
        still merges; that is not a failure. Exit 1 when the store itself cannot be read.
        """

    static let command = Command(name: name, summary: summary, flags: flags, details: details) { flags, context in
        try run(flags, context: context)
    }

    /// `status`'s options, settled before anything is read.
    struct Options: Equatable {
        var merge: MergeSettings
        var format: Format
        var provider: String?
        var account: String?

        var json: Bool { format == .json }

        init(_ flags: ParsedFlags, context: RunContext) throws {
            merge = try MergeSettings(flags, context: context, command: name)
            let chosen = try flags.value(StatusCommand.format).map { text in
                guard let format = Format(name: text) else {
                    let names = Format.names
                    throw UsageError(
                        "--format: '\(text)' is not a format; expected \(names.dropLast().joined(separator: ", ")) or "
                            + (names.last ?? ""), command: name)
                }
                return format
            }
            if flags.isSet(CommonFlags.json), let chosen, chosen != .json {
                throw UsageError("--json and --format \(chosen.name) ask for two formats; give one", command: name)
            }
            format = flags.isSet(CommonFlags.json) ? .json : chosen ?? .table
            provider = flags.value(StatusCommand.provider)?.lowercased()
            account = flags.value(StatusCommand.account).map {
                $0.trimmingWhitespace().lowercased()
            }
        }

        /// The accounts the filters keep.
        func keeps(_ merged: MergedAccount) -> Bool {
            (provider.map { merged.providerID == $0 } ?? true)
                && (account.map { merged.key.normalizedEmail == $0 } ?? true)
        }

        /// `result` with only the accounts the filters keep (untouched, not copied, without filters).
        func filtered(_ result: MergeResult) -> MergeResult {
            guard provider != nil || account != nil else { return result }
            var kept = result
            kept.accounts = result.accounts.filter(keeps)
            return kept
        }
    }

    static func run(_ flags: ParsedFlags, context: RunContext) throws -> ExitStatus {
        let options = try Options(flags, context: context)
        let budgets = try BudgetSettings(nil, context: context, command: name)
        if !budgets.budgets.isEmpty, options.format == .json || options.format == .table {
            return try runBudgeted(options, budgets: budgets, context: context)
        }
        if options.format == .json { return try runJSON(options, context: context) }
        // The table's sparkline needs the weekly trend; status bars pay nothing for it.
        let (merged, saveCache) = try context.merged(
            options.merge, history: options.format == .table ? .trend : .skip)
        let result = options.filtered(merged)
        // The cache is saved on another core while the report is written; nobody waits for it.
        let saving = DispatchGroup()
        DispatchQueue.global().async(group: saving) { saveCache() }
        defer { saving.wait() }
        switch options.format {
        case .json:
            break  // answered by runJSON
        case .bar(let name):
            if let format = OutputFormats.named(name, for: .status) {
                format.render(result, table: "").withUnsafeBytes { context.console.output.write(bytes: $0) }
            }
        case .table:
            if result.accounts.isEmpty, !merged.accounts.isEmpty {
                // The store has accounts; the filters kept none of them.
                let filters = [
                    options.provider.map { "--provider '\($0)'" }, options.account.map { "--account '\($0)'" },
                ]
                context.console.print(
                    "no account matches \(filters.compactMap { $0 }.joined(separator: " and ")) "
                        + "(the store has \(merged.accounts.count))")
            } else {
                context.console.printRendered(
                    lines: tableLines(
                        result, color: context.console.usesColor, ascii: context.environment["TERM"] == "dumb"))
            }
            report(result.problems, on: context.console)
        }
        return .success
    }

    /// `status` with the config's budgets: the merge, then each budget's month from the ledger (which the
    /// kept document does not follow, so it is not used).
    private static func runBudgeted(_ options: Options, budgets: BudgetSettings, context: RunContext) throws
        -> ExitStatus
    {
        let (merged, saveCache) = try context.merged(options.merge, history: options.json ? .skip : .trend)
        defer { saveCache() }
        let result = options.filtered(merged)
        let standings: [BudgetStanding]
        let problems: [RecordProblem]
        do {
            (standings, problems) = try budgets.standings(
                in: try context.openStore(options.merge.location), now: result.now, context: context)
        } catch let error as StoreError {
            throw CommandFailure(error.description)
        }
        if options.json {
            var json = StatusJSONWriter(streamingTo: context.console.output)
            var all = result
            all.problems += problems
            StatusReport.status(all, budgets: standings, to: &json)
            json.finish()
            return .success
        }
        context.console.printRendered(
            lines: tableLines(result, color: context.console.usesColor, ascii: context.environment["TERM"] == "dumb"))
        context.console.printRendered(StatusReport.budgetLines(standings))
        report(result.problems + problems, on: context.console)
        return .success
    }

    /// `status --json`: what programs and status bars poll, so a store that stays the same is answered
    /// from the document of an earlier run (`StatusTemplate`) with its moment-dependent values judged anew.
    private static func runJSON(_ options: Options, context: RunContext) throws -> ExitStatus {
        let merging = try context.storeMerge(options.merge)
        let mergeOptions = options.merge.options(clock: context.clock)
        let listing = try merging.list()
        let identity = merging.identity(of: listing, options: mergeOptions)
        let templatePath = identity.flatMap { _ in merging.reader.keptFile(.statusDocument) }
        if let identity, let templatePath,
            let template = StatusTemplate.load(
                from: templatePath, readerVersion: merging.readerVersion,
                accepting: {
                    $0.stands(
                        for: identity, provider: options.provider, account: options.account, at: mergeOptions.now)
                })
        {
            context.keepUntilExit(template)
            template.write(judgedBy: mergeOptions, to: context.console.output)
            merging.keepNames(of: listing)
            return .success
        }
        let outcome = merging.merge(listing, options: mergeOptions, realNow: Date())
        context.keepUntilExit(outcome)
        let result = options.filtered(outcome.result)
        let saving = DispatchGroup()
        DispatchQueue.global().async(group: saving) { outcome.finish() }
        defer { saving.wait() }
        if let memoized = outcome.memoized, let templatePath {
            // The merge came from the memo: the store stayed the same since the last run, and will
            // likely stay so for the next.
            writeKeeping(result, as: memoized, options: options, at: templatePath, to: context.console.output)
        } else {
            var json = StatusJSONWriter(streamingTo: context.console.output)
            StatusReport.status(result, to: &json)
            json.finish()
        }
        return .success
    }

    /// Writes the document of `result` and keeps it at `path`, its moment-dependent values marked.
    private static func writeKeeping(
        _ result: MergeResult, as identity: MergeIdentity, options: Options, at path: String, to output: any TextSink
    ) {
        var json = StatusJSONWriter(capacity: 64 * 1024 + result.accounts.count * 2048, marking: true)
        StatusReport.status(result, to: &json)
        let interval = StatusTemplate.Key.interval(of: result)
        let key = StatusTemplate.Key(
            identity: identity, provider: options.provider, account: options.account, newestEntry: result.newestEntry,
            standsFrom: interval.from, standsUntil: interval.until)
        json.withBytes { document in
            output.write(bytes: document)
            output.write("\n")
            try? StatusTemplate.save(document, marks: json.moments ?? [], key: key, to: path)
        }
    }

    static func report(_ problems: [RecordProblem], on console: Console) {
        for problem in problems {
            console.warn("'\(problem.file)': \(problem.reason)")
        }
    }

    /// - Parameter ascii: draw the weekly sparkline in ASCII (`TERM=dumb`).
    static func table(_ result: MergeResult, color: Bool, ascii: Bool = false) -> String {
        String(decoding: tableLines(result, color: color, ascii: ascii).dropLast(), as: UTF8.self)
    }

    /// `table` as UTF-8 lines, each ending in a line feed.
    static func tableLines(_ result: MergeResult, color: Bool, ascii: Bool = false) -> [UInt8] {
        if result.accounts.isEmpty {
            // A person's first look: what to run next, not only that there is nothing.
            return Array(
                ("no accounts in the store yet: publish this machine's with 'aggctl publish --store S --source codex "
                    + "--source claude', and the same on each machine\n").utf8)
        }
        let showTrend = result.accounts.contains { $0.weeklyTrend != nil }
        let showLimits = result.accounts.contains { !($0.limits ?? []).isEmpty }
        var headers = ["PROVIDER", "ACCOUNT", "PLAN", "SESSION", "WEEKLY"]
        if showLimits { headers.append("LIMIT") }
        if showTrend { headers.append("7 DAYS") }
        headers += ["RESETS", "PACE", "FROM", "NOTE"]
        var table = TextTable(headers: headers)
        table.rows.reserveCapacity(result.accounts.count)
        for account in result.accounts {
            var notes: [String] = []
            if account.blocked {
                notes.append(
                    "blocked" + (account.availableAt.map { " until " + HumanFormat.until($0, now: result.now) } ?? ""))
            }
            if account.clockSkew { notes.append("clock skew") }
            if account.stale { notes.append("stale") }
            if let error = account.error {
                // A newer entry from another machine that has no figures: its error, and where it came from.
                let from = account.errorDeviceID.map { " (\($0), newer)" } ?? ""
                notes.append(RecordCodec.printable(error, limit: 40) + from)
            }
            var from = "\(account.deviceName), \(HumanFormat.ago(account.lastUpdated, now: result.now))"
            if account.seenOn.count > 1 { from += " (seen on \(account.seenOn.count))" }
            var row: [TextTable.Cell] = []
            row.reserveCapacity(headers.count)
            row.append(TextTable.Cell(ProviderNames.displayName(of: account.providerID)))
            row.append(TextTable.Cell(account.accountEmail ?? "-"))
            row.append(TextTable.Cell(account.plan ?? "-"))
            row.append(windowCell(account.session))
            row.append(windowCell(account.weekly))
            if showLimits { row.append(limitCell(account)) }
            if showTrend {
                // The weekly window at the end of each half day of the last week, across every machine.
                let values = account.weeklyTrend?.halfDays(endingAt: result.now) ?? []
                row.append(values.isEmpty ? "-" : TextTable.Cell(sparkline: values, ascii: ascii))
            }
            row.append(
                TextTable.Cell(account.session?.resetsAt.map { HumanFormat.until($0, now: result.now) } ?? "-"))
            row.append(paceCell(account, now: result.now))
            row.append(TextTable.Cell(from, color: account.stale ? .dim : nil))
            row.append(
                TextTable.Cell(
                    notes.joined(separator: "; "), color: notes.isEmpty ? nil : .yellow, limit: TextTable.noteWidth))
            table.rows.append(row)
        }
        return table.renderedLines(color: color)
    }

    /// The weekly window's pace, since it decides the days ahead; the session's instead when the session
    /// runs out before its reset, which is the more urgent news.
    static func paceCell(_ account: MergedAccount, now: Date) -> TextTable.Cell {
        let session = account.session?.pace(at: now)
        if let session, !session.lastsUntilReset {
            return TextTable.Cell("session " + HumanFormat.pace(session), color: .yellow)
        }
        if let weekly = account.weekly?.pace(at: now) {
            return TextTable.Cell(
                "weekly " + HumanFormat.pace(weekly), color: weekly.lastsUntilReset ? nil : .yellow)
        }
        if let session {
            return TextTable.Cell("session " + HumanFormat.pace(session))
        }
        return "-"
    }

    private static func windowCell(_ window: WindowStatus?) -> TextTable.Cell {
        guard let window else { return "-" }
        guard !window.due else { return TextTable.Cell("due", color: .dim) }
        var text = HumanFormat.percent(window.remainingPercent) + " left"
        if window.level == .depleted { text = "depleted" }
        return TextTable.Cell(text, color: HumanFormat.color(for: window.level))
    }

    /// The account's tightest limit beyond session and weekly (the one with the least left that is not
    /// due), by its label: `Opus used up`, `Premium requests 8% left`, and `+2` for the others it has.
    static func limitCell(_ account: MergedAccount) -> TextTable.Cell {
        let limits = account.limits ?? []
        guard
            let tightest = limits.filter({ !$0.window.due }).min(by: {
                $0.window.remainingPercent < $1.window.remainingPercent
            })
        else { return limits.isEmpty ? "-" : TextTable.Cell("due", color: .dim) }
        let label = TerminalWidth.cut(SafeText.line(tightest.label), to: 20)
        var text =
            tightest.window.level == .depleted
            ? label + " used up" : label + " " + HumanFormat.percent(tightest.window.remainingPercent) + " left"
        if limits.count > 1 { text += " +\(limits.count - 1)" }
        return TextTable.Cell(text, color: HumanFormat.color(for: tightest.window.level))
    }
}
