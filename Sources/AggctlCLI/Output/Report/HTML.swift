import TextSafety

/// Text from records made safe for an HTML page: one line, then every character that could open a tag,
/// an entity or end an attribute as an entity (both `SafeText`). The page's one way to quote a record.
enum HTML {
    static func text(_ value: String, limit: Int? = nil) -> String {
        SafeText.markup(SafeText.line(value, limit: limit), quotes: true)
    }

    /// A coordinate with at most two decimals, without a trailing `.0`: short and stable for tests.
    static func number(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        return String(rounded)
    }
}
