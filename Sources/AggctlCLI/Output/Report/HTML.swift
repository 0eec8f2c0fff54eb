import Serialization
import TextSafety

/// Text from records made safe for an HTML page: one line, then every character that could open a tag,
/// an entity or end an attribute as an entity (both `SafeText`). The page's one way to quote a record.
enum HTML {
    static func text(_ value: String, limit: Int? = nil) -> String {
        SafeText.markup(SafeText.line(value, limit: limit), quotes: true)
    }

    /// A coordinate with at most two decimals, without a trailing `.0`: short and stable for tests.
    static func number(_ value: Double) -> String {
        let out = ByteOutput(capacity: 32, sink: nil)
        out.number(value)
        return out.text
    }
}

/// The page's pieces written as bytes: a report is tens of thousands of coordinates, and building each as
/// a `String` was most of a page's cost.
extension ByteOutput {
    /// A string's UTF-8 bytes as they are: markup, or record text already made safe by `HTML.text`.
    func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            if let base = utf8.baseAddress { bytes(base, utf8.count) }
        }
    }

    /// Record text made safe for the page (`HTML.text`).
    func html(_ value: String, limit: Int? = nil) {
        string(HTML.text(value, limit: limit))
    }
}
