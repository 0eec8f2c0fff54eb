import Aggregator

/// `export --format prometheus`: the metrics of docs/prometheus.md (`PrometheusText`), the month's spend
/// from the ledger among them.
struct PrometheusFormat: OutputFormat {
    let name = "prometheus"
    let summary = "Prometheus text exposition, for node_exporter's textfile collector or a scrape"
    let command = FormatCommand.export
    let showsSpending = true
    func render(_ result: MergeResult, table: String) -> [UInt8] { PrometheusText.render(result) }
    func render(_ result: MergeResult, table: String, spending: MonthSpending?) -> [UInt8] {
        PrometheusText.render(result) + (spending.map(PrometheusText.spending) ?? [])
    }
}
