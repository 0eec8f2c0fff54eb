import Aggregator
import Snapshots

/// `export --format csv`: a spreadsheet's rows (`CSVTable`): a row per account and window, or with
/// `--table daily` tokens and cost per device and UTC day.
struct CSVFormat: OutputFormat {
    let name = "csv"
    let summary = "CSV for spreadsheets"
    let command = FormatCommand.export
    let tables = ["accounts", "daily"]
    /// The daily rows are history: read past the caches.
    func history(table: String) -> HistoryDetail { table == "daily" ? .full : .skip }
    func render(_ result: MergeResult, table: String) -> [UInt8] {
        Array((table == "daily" ? CSVTable.daily(result) : CSVTable.accounts(result)).utf8)
    }
}
