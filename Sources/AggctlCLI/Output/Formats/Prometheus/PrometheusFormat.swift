import Aggregator

/// `export --format prometheus`: the metrics of docs/prometheus.md (`PrometheusText`).
struct PrometheusFormat: OutputFormat {
    let name = "prometheus"
    let summary = "Prometheus text exposition, for node_exporter's textfile collector or a scrape"
    let command = FormatCommand.export
    func render(_ result: MergeResult, table: String) -> [UInt8] { PrometheusText.render(result) }
}
