import Aggregator
import Portable
import Snapshots

/// `aggctl export`: the merged view for other tools; `--format prometheus` for node_exporter's textfile
/// collector or a scrape.
enum ExportCommand {
    static let name: String = "export"
    static let summary = "Print the merged view for other tools: Prometheus text exposition, or CSV for spreadsheets."
    static let format = FlagSpec.option(
        "format", "FORMAT", choices: ["prometheus", "csv"], "prometheus or csv; required")
    static let table = FlagSpec.option(
        "table", "TABLE", choices: ["accounts", "daily"],
        "with csv: accounts (a row per account and window; default) or daily (tokens and cost per device and day)")
    static let out = FlagSpec.option(
        "out", "FILE",
        "write to FILE atomically (a temporary name in its folder, then a rename; a new path or a regular file) instead of stdout"
    )
    static let flags = [
        CommonFlags.store, CommonFlags.keyFile, CommonFlags.requireEncrypted, format, table, out, CommonFlags.now,
        CommonFlags.staleAfter, CommonFlags.maxSkew,
    ]

    enum Output: Equatable {
        case prometheus, csvAccounts, csvDaily
    }
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
    struct Options: Equatable {
        var merge: MergeSettings
        var out: OutputTarget
        var output: Output

        init(_ flags: ParsedFlags, context: RunContext) throws {
            guard let chosen = flags.value(ExportCommand.format) else {
                throw UsageError("export needs --format prometheus or --format csv", command: name)
            }
            let table = flags.value(ExportCommand.table)
            switch (chosen, table) {
            case ("prometheus", nil): output = .prometheus
            case ("prometheus", _?):
                throw UsageError("--table is for --format csv; Prometheus has one table", command: name)
            case ("csv", nil), ("csv", "accounts"?): output = .csvAccounts
            case ("csv", "daily"?): output = .csvDaily
            case ("csv", let other?):
                throw UsageError("--table: '\(other)' is not a table; expected accounts or daily", command: name)
            default:
                throw UsageError("--format: '\(chosen)' is not a format; expected prometheus or csv", command: name)
            }
            out =
                try flags.value(ExportCommand.out).map { try OutputTarget.parse($0, command: name) } ?? .standardOutput
            merge = try MergeSettings(flags, context: context, command: name)
        }
    }

    static func run(_ flags: ParsedFlags, context: RunContext) throws -> ExitStatus {
        let options = try Options(flags, context: context)
        // Daily ledgers are history: read past the caches.
        let (result, saveCache) = try StatusCommand.merge(
            options.merge, context: context, history: options.output == .csvDaily ? .full : .skip)
        defer { saveCache() }
        // Freed at exit, not here: freeing a merge of thousands of accounts was a tenth of an export.
        context.keepUntilExit(result)
        let bytes =
            switch options.output {
            case .prometheus: Data(PrometheusText.render(result))
            case .csvAccounts: Data(CSVTable.accounts(result).utf8)
            case .csvDaily: Data(CSVTable.daily(result).utf8)
            }
        try options.out.write(bytes, console: context.console)
        StatusCommand.report(result.problems, on: context.console)
        return .success
    }
}
