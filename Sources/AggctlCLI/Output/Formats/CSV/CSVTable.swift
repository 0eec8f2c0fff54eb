import Aggregator
import Portable
import Serialization
import Snapshots
import TextSafety

/// `export --format csv`: the merged view for spreadsheets (RFC 4180: a header row, commas, CRLF, fields
/// with a comma, quote or line break quoted).
///
/// Record text is hostile: a field a spreadsheet would read as a formula (starting with `=`, `+`, `-`,
/// `@`) gets a leading `'`, so `=HYPERLINK(...)` in an account name stays text; every field is one safe
/// line first.
enum CSVTable {
    static func field(_ value: String) -> String {
        var text = SafeText.line(value)
        if let first = text.first, "=+-@".contains(first) { text = "'" + text }
        guard text.contains(where: { $0 == "," || $0 == "\"" }) else { return text }
        return "\"" + text.replacing("\"", with: "\"\"") + "\""
    }

    static func number(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "" }
        return value.plainText
    }

    static func rows(_ rows: [[String]]) -> String {
        rows.map { $0.joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
    }

    /// One row per account and window.
    static func accounts(_ result: MergeResult) -> String {
        var table = [
            [
                "provider", "account", "device", "window", "used_percent", "remaining_percent", "level", "resets_at",
                "last_updated", "stale",
            ]
        ]
        for account in result.accounts {
            for (name, window) in account.windows {
                table.append([
                    field(account.providerID), field(account.accountEmail ?? ""), field(account.deviceID.rawValue),
                    field(name), number(window.usedPercent), number(window.remainingPercent),
                    StatusReport.level(of: window),
                    window.resetsAt.map(RFC3339.format) ?? "", RFC3339.format(account.lastUpdated),
                    account.stale ? "true" : "false",
                ])
            }
        }
        return rows(table)
    }

    /// One row per account, device and UTC day: each device's own tokens and cost.
    static func daily(_ result: MergeResult) -> String {
        var table = [["provider", "account", "device", "date", "tokens", "cost_usd"]]
        for account in result.accounts {
            for ledger in account.perDevice {
                for day in ledger.daily {
                    table.append([
                        field(account.providerID), field(account.accountEmail ?? ""), field(ledger.deviceID.rawValue),
                        field(day.date), String(day.tokens), number(day.costUSD),
                    ])
                }
            }
        }
        return rows(table)
    }
}
