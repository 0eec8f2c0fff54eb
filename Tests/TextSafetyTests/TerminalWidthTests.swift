import Testing
import TextSafety

struct TerminalWidthTests {
    @Test(
        "wide scripts and emoji take two columns, accents and zero-width characters none",
        arguments: [
            ("laptop", 6),
            ("開発機", 6),
            ("한국", 4),
            ("ｈｉ", 4),
            ("café", 4),
            ("cafe\u{301}", 4),
            ("🚀 box", 6),
            ("👨‍👩‍👧", 2),
            ("🇩🇪", 2),
            ("a\u{200B}b", 2),
            ("❤", 1),
            ("❤\u{FE0F}", 2),
            ("▁▅█", 3),
            ("", 0),
        ])
    func columns(text: String, width: Int) {
        #expect(TerminalWidth.of(text) == width)
    }

    @Test("a field is cut to its columns with ..., wide characters counted as two")
    func cut() {
        #expect(TerminalWidth.cut("short", to: 10) == "short")
        #expect(TerminalWidth.cut(String(repeating: "a", count: 20), to: 10) == "aaaaaaa...")
        #expect(TerminalWidth.cut("開発機開発機開発機", to: 10) == "開発機...")
        #expect(TerminalWidth.of(TerminalWidth.cut(String(repeating: "🚀", count: 50), to: 24)) <= 24)
    }
}
