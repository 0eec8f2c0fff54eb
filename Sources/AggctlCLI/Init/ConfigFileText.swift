import Portable
import TextSafety

/// Edits the config file's text as `aggctl init --write` does: the keys it sets get its values, on the
/// lines where they were (or at the end); every other line, comments included, stays as it was.
enum ConfigFileText {
    static let header =
        "# aggctl's settings on this machine (aggctl config --help names the keys). Written by\n"
        + "# `aggctl init --write`, which rewrites only the keys it sets: store, source and notify.\n"

    /// `text` (nil: no file yet) with each key's lines replaced by one line per value.
    static func updating(_ text: String?, with settings: [(key: String, values: [String])]) throws(UnschedulableValue)
        -> String
    {
        var lines = (text ?? header).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        for (key, values) in settings {
            let written = try values.map { value throws(UnschedulableValue) in try line(key: key, value: value) }
            let at = lines.firstIndex { Self.key(of: $0) == key }
            lines.removeAll { Self.key(of: $0) == key }
            lines.insert(contentsOf: written, at: min(at ?? lines.count, lines.count))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The key a line sets, or nil for a comment, a blank line or anything else.
    static func key(of line: String) -> String? {
        let trimmed = line.trimmingBlanks()
        guard !trimmed.hasPrefix("#"), let equals = trimmed.firstIndex(of: "=") else { return nil }
        return trimmed[..<equals].trimmingBlanks()
    }

    /// `key = value`, the value in double quotes where it would otherwise read differently (a `#`, blanks
    /// at its ends, a leading quote).
    static func line(key: String, value: String) throws(UnschedulableValue) -> String {
        guard !value.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\0" }) else {
            throw UnschedulableValue(
                message: "'\(SafeText.line(value))' holds a line break, which the config file cannot")
        }
        let plain = !value.contains("#") && value.trimmingBlanks() == value && !value.hasPrefix("\"")
        if plain { return "\(key) = \(value)" }
        guard !value.contains("\"") else {
            throw UnschedulableValue(
                message: "'\(SafeText.line(value))' holds both '#' and '\"', which the config file cannot")
        }
        return "\(key) = \"\(value)\""
    }
}
