import Aggregator
import Snapshots

/// Which command offers a format: `status --format NAME` (people and status bars) or `export --format NAME`
/// (other tools).
enum FormatCommand: Sendable {
    case status, export
}

/// One way to write a merged view: its name, its help, what it needs of the merge, and the bytes it makes.
/// Adding one is a folder under `Output/Formats/` and one line in `OutputFormats.standard`: the command's
/// `--format` choices, its help, the completions and the manual page come from the list. (`status`'s
/// table and JSON are its own: the table prints through the console, the JSON keeps its document.)
protocol OutputFormat: Sendable {
    var name: String { get }
    /// One line for help: what reads it.
    var summary: String { get }
    var command: FormatCommand { get }
    /// Its `--table` choices, the first the default; empty when it has one table.
    var tables: [String] { get }
    /// How much of the records' history the merge must read for `table`.
    func history(table: String) -> HistoryDetail
    func render(_ result: MergeResult, table: String) -> [UInt8]
    /// Whether it shows what was spent this month (`MonthSpending`, read from the ledger for it only).
    var showsSpending: Bool { get }
    func render(_ result: MergeResult, table: String, spending: MonthSpending?) -> [UInt8]
}

extension OutputFormat {
    var tables: [String] { [] }
    func history(table: String) -> HistoryDetail { .skip }
    var showsSpending: Bool { false }
    func render(_ result: MergeResult, table: String, spending: MonthSpending?) -> [UInt8] {
        render(result, table: table)
    }
}

/// What the ledger says of the month so far, in the reader's zone: every machine's spend by provider,
/// account and model, and each budget's standing.
struct MonthSpending: Sendable {
    var table: SpendingTable
    var budgets: [BudgetStanding]
}

/// The formats aggctl ships.
enum OutputFormats {
    static let standard: [any OutputFormat] = [
        LineFormat(),
        TmuxFormat(),
        WaybarFormat(),
        I3BarFormat(),
        PrometheusFormat(),
        CSVFormat(),
    ]

    static func offered(by command: FormatCommand) -> [any OutputFormat] {
        standard.filter { $0.command == command }
    }

    static func named(_ name: String, for command: FormatCommand) -> (any OutputFormat)? {
        standard.first { $0.command == command && $0.name == name }
    }
}
