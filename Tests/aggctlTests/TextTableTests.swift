import Testing

@testable import AggctlCLI

struct TextTableTests {
    static func sample() -> TextTable {
        var table = TextTable(headers: ["NAME", "LEFT", "7 DAYS", "NOTE"])
        table.rows = [
            [
                "laptop", TextTable.Cell("8% left", color: .red),
                TextTable.Cell(sparkline: [0, 50, 100], ascii: false), "",
            ],
            [
                "zürich-box", "57% left", TextTable.Cell(sparkline: [nil, 20], ascii: false),
                TextTable.Cell("stale", color: .yellow),
            ],
            ["evil\u{1B}[2J\nrow", "-", "-", TextTable.Cell("", color: .yellow)],
        ]
        return table
    }

    @Test("columns line up by characters shown, two spaces apart, with no trailing blanks")
    func plain() {
        #expect(
            Self.sample().render(color: false).split(separator: "\n", omittingEmptySubsequences: false) == [
                "NAME              LEFT      7 DAYS  NOTE",
                "laptop            8% left   ▁▅█",
                "zürich-box        57% left   ▂      stale",
                "evil\\x1B[2J\\nrow  -         -",
            ])
    }

    @Test("colour wraps a cell's text and never shifts the columns")
    func coloured() {
        let lines = Self.sample().render(color: true).split(separator: "\n").map(String.init)
        #expect(
            lines[0]
                == "\u{1B}[1mNAME\u{1B}[0m              \u{1B}[1mLEFT\u{1B}[0m      \u{1B}[1m7 DAYS\u{1B}[0m  \u{1B}[1mNOTE\u{1B}[0m"
        )
        #expect(lines[1] == "laptop            \u{1B}[31m8% left\u{1B}[0m   ▁▅█")
        #expect(lines[2] == "zürich-box        57% left   ▂      \u{1B}[33mstale\u{1B}[0m")
        // An empty cell gets no colour, so the line still ends where its text does.
        #expect(lines[3] == "evil\\x1B[2J\\nrow  -         -")
    }

    @Test("wide characters and emoji count the columns a terminal gives them")
    func wide() {
        var table = TextTable(headers: ["NAME", "LEFT"])
        table.rows = [["開発機", "1%"], ["🚀 box", "2%"], ["laptop", "3%"], ["cafe\u{301}", "4%"]]
        #expect(
            table.render(color: false).split(separator: "\n") == [
                "NAME    LEFT", "開発機  1%", "🚀 box  2%", "laptop  3%", "cafe\u{301}    4%",
            ])
    }
}
