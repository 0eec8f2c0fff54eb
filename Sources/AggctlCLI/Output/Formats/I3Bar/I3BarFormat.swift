import Aggregator
import Serialization
import TextSafety

/// `--format i3bar`: one block of the i3bar protocol (https://i3wm.org/docs/i3bar-protocol.html), as
/// i3blocks reads a command's output with `format=json` and as swaybar shows it: `full_text` (the line),
/// `short_text` (each account's figure alone, for a narrow bar), `color` by the worst level, and `urgent`
/// while an account can be used no more. Plain text (no `markup`): record text cannot restyle the bar.
struct I3BarFormat: OutputFormat {
    let name = "i3bar"
    let summary = "an i3bar block, for i3blocks (format=json) and swaybar"
    let command = FormatCommand.status

    /// The colors of i3status's defaults for degraded and bad.
    static let colors: [WindowLevel: String] = [.warning: "#FFFF00", .critical: "#FF0000", .depleted: "#FF0000"]

    func render(_ result: MergeResult, table: String) -> [UInt8] {
        let worst = result.accounts.compactMap(\.tightestWindow).min { $0.remainingPercent < $1.remainingPercent }
        let short = result.accounts.map { StatusBar.figure(of: $0, now: result.now) }.joined(separator: " ")
        var json = StatusJSONWriter()
        json.object { json in
            if let color = worst.flatMap({ Self.colors[$0.level] }) {
                json.key("color")
                json.string(color)
            }
            json.key("full_text")
            json.string(StatusBar.line(result))
            json.key("name")
            json.string("aggctl")
            json.key("short_text")
            json.string(TerminalWidth.cut(SafeText.line(short.isEmpty ? "-" : short), to: StatusBar.lineWidth))
            json.key("urgent")
            json.bool(result.accounts.contains { $0.blocked })
        }
        return Array((json.text + "\n").utf8)
    }
}
