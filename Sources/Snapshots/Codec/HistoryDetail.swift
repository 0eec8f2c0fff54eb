/// How much of a record's history a read keeps (the record format: "a reader that does not need it skips
/// it cheaply").
public enum HistoryDetail: Sendable, Equatable {
    /// None: samples and per-day tokens are validated as JSON and dropped (`check`, `status --json`).
    case skip
    /// The weekly samples' last week by half day (`WeeklyTrend`), for a table's sparkline.
    case trend
    /// Everything: samples and per-day tokens (`report`).
    case full
}
