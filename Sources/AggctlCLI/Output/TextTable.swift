import TextSafety

/// A plain-text table for people: left-aligned columns, two spaces apart, colour that never shifts them.
///
/// Cells hold record text (device names, accounts, plans): each is made one safe line when it is made,
/// so a rendered table has exactly one line per row and no control character but its own colours.
struct TextTable {
    /// One cell: its text and an optional ANSI colour applied when colour is on.
    struct Cell: ExpressibleByStringLiteral {
        var text: String
        var color: ANSIColor?
        /// Characters shown, counted once: counting them is most of rendering a large table.
        var width: Int

        init(_ text: String, color: ANSIColor? = nil) {
            self.text = SafeText.line(text)
            self.color = color
            // ASCII (most cells) is one character a byte; anything else is counted as characters.
            width = self.text.utf8.allSatisfy { $0 < 0x80 } ? self.text.utf8.count : self.text.count
        }

        init(stringLiteral value: String) {
            self.init(value)
        }
    }

    var headers: [String]
    var rows: [[Cell]] = []

    func render(color: Bool) -> String {
        var widths = headers.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.width)
            }
        }
        func line(_ cells: [Cell], header: Bool) -> String {
            var out = ""
            for (index, cell) in cells.enumerated() {
                let last = index == cells.count - 1
                let padding = last ? "" : String(repeating: " ", count: widths[index] - cell.width + 2)
                if color, let code = header ? ANSIColor.bold : cell.color {
                    out += code.rawValue + cell.text + ANSIColor.reset.rawValue + padding
                } else {
                    out += cell.text + padding
                }
            }
            // An empty last column would otherwise leave trailing blanks.
            while out.hasSuffix(" ") { out.removeLast() }
            return out
        }
        var lines = [line(headers.map { Cell($0) }, header: true)]
        lines += rows.map { line($0, header: false) }
        return lines.joined(separator: "\n")
    }
}

enum ANSIColor: String {
    case reset = "\u{1B}[0m"
    case bold = "\u{1B}[1m"
    case dim = "\u{1B}[2m"
    case red = "\u{1B}[31m"
    case green = "\u{1B}[32m"
    case yellow = "\u{1B}[33m"
}
