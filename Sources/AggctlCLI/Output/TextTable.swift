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
        /// The columns a terminal gives the text, counted once: counting them is most of rendering a
        /// large table.
        var width: Int

        /// - Parameter limit: the most columns the cell takes (`TextTable.fieldWidth` by default): longer
        ///   text is cut with `...`; `--json` carries the whole value.
        init(_ text: String, color: ANSIColor? = nil, limit: Int = TextTable.fieldWidth) {
            self.text = TerminalWidth.cut(SafeText.line(text), to: limit)
            self.color = color
            width = TerminalWidth.of(self.text)
        }

        init(stringLiteral value: String) {
            self.init(value)
        }

        /// A sparkline of `values` (`HumanFormat.sparkline`). It is made of aggctl's own characters, one a
        /// value, so it needs no making safe and its width is the number of values: counting the
        /// characters of the thousand sparklines of a large table was a tenth of rendering it.
        init(sparkline values: [Double?], ascii: Bool) {
            text = HumanFormat.sparkline(values, ascii: ascii)
            color = nil
            width = values.count
        }
    }

    /// The most columns a cell takes: enough for any real account, device name or plan.
    static let fieldWidth = 48
    /// The most a NOTE cell takes (it says what to do).
    static let noteWidth = 120

    var headers: [String]
    var rows: [[Cell]] = []

    /// The table, a line per row after the header's; no line ends in blanks. Colour, when on, wraps a
    /// cell's text (the headers bold) and leaves an empty cell bare.
    func render(color: Bool) -> String {
        String(decoding: renderedLines(color: color).dropLast(), as: UTF8.self)
    }

    /// `render(color:)` as UTF-8, each line ending in a line feed: for writing out as it is.
    func renderedLines(color: Bool) -> [UInt8] {
        var widths = headers.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.width)
            }
        }
        // Written as bytes: a thousand-row table is ten thousand cells, and appending strings (with their
        // paddings made as strings) was most of a warm `status`.
        var out: [UInt8] = []
        out.reserveCapacity((widths.reduce(0, +) + 2 * widths.count + 1) * (rows.count + 1))
        func append(_ text: String) {
            if text.utf8.withContiguousStorageIfAvailable({ out.append(contentsOf: $0) }) == nil {
                out.append(contentsOf: text.utf8)
            }
        }
        func line(_ cells: [Cell], header: Bool) {
            let start = out.count
            for index in cells.indices {
                let cell = cells[index]
                if color, !cell.text.isEmpty, let code = header ? ANSIColor.bold : cell.color {
                    append(code.rawValue)
                    append(cell.text)
                    append(ANSIColor.reset.rawValue)
                } else {
                    append(cell.text)
                }
                if index < cells.count - 1 {
                    for _ in 0..<(widths[index] - cell.width + 2) { out.append(UInt8(ascii: " ")) }
                }
            }
            // An empty last column would otherwise leave trailing blanks.
            while out.count > start, out.last == UInt8(ascii: " ") { out.removeLast() }
            out.append(UInt8(ascii: "\n"))
        }
        line(headers.map { Cell($0) }, header: true)
        for row in rows { line(row, header: false) }
        return out
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
