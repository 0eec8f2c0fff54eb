import Testing
import TextSafety

struct SafeTextTests {
    @Test(
        "control characters, separators and bidi overrides are shown escaped, on one line",
        arguments: [
            ("\u{1B}[2J\u{1B}]0;pwned\u{07}", "\\x1B[2J\\x1B]0;pwned\\x07"),
            ("a\r\nb", "a\\r\\nb"),
            ("tab\there", "tab\\there"),
            ("\u{7F}\u{9B}31m", "\\x7F\\x9B31m"),
            ("evil\u{202E}gnp.exe", "evil\\u{202E}gnp.exe"),
            ("line\u{2028}sep", "line\\u{2028}sep"),
            ("nul\u{0}", "nul\\x00"),
        ])
    func escapes(input: String, expected: String) {
        let line = SafeText.line(input)
        #expect(line == expected)
        #expect(!SafeText.hasControlCharacters(line))
    }

    @Test("ordinary text, accents and emoji pass unchanged")
    func ordinary() {
        for text in ["you@example.com", "Max 5x", "Zoë's Mac ☕", "日本語", "\u{1F600}"] {
            #expect(SafeText.line(text) == text)
            #expect(!SafeText.hasControlCharacters(text))
        }
    }

    @Test("a limit cuts the safe text, never in the middle of an escape's meaning")
    func limit() {
        #expect(SafeText.line("abcdef", limit: 3) == "abc...")
        #expect(SafeText.line("abc", limit: 3) == "abc")
        #expect(!SafeText.hasControlCharacters(SafeText.line(String(repeating: "\u{1B}", count: 50), limit: 7)))
    }

    @Test("markup is shown as text: no tag, link or entity survives")
    func markup() {
        #expect(
            SafeText.markup("<a href=\"http://x\">click</a> & <img src=x>")
                == "&lt;a href=\"http://x\"&gt;click&lt;/a&gt; &amp; &lt;img src=x&gt;")
        // A combining mark makes one character with the quote or bracket before it: they are replaced all
        // the same, or a quote so dressed would end the attribute a record's text stands in.
        #expect(
            SafeText.markup("x\"\u{301} style=\"y\" <\u{301}b>\u{301}", quotes: true)
                == "x&quot;\u{301} style=&quot;y&quot; &lt;\u{301}b&gt;\u{301}")
        #expect(SafeText.markup("Ünïcode, plain", quotes: true) == "Ünïcode, plain")
    }

    @Test("CR, LF and NUL make a header value unsafe; other text is fine")
    func headers() {
        #expect(SafeText.isHeaderSafe("Bearer abc.def-ghi"))
        #expect(!SafeText.isHeaderSafe("abc\r\nX-Evil: 1"))
        #expect(!SafeText.isHeaderSafe("abc\nX"))
        #expect(!SafeText.isHeaderSafe("abc\u{0}"))
    }

    @Test("bytes are terminal-safe exactly when their text has nothing line would escape, and are valid UTF-8")
    func terminalSafeBytes() {
        let pieces = [
            "plain ascii text, long enough for whole words", "ünïcödé", "例え", "😀", "\u{1B}[2J", "\n", "\t", "\u{7F}",
            "\u{85}", "\u{9F}", "\u{A0}", "\u{2028}", "\u{202E}", "\u{2066}", "\u{2070}", "\"quoted\"", "",
        ]
        var state: UInt64 = 7
        for _ in 0..<2000 {
            var text = ""
            for _ in 0..<Int(state % 6) {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                text += pieces[Int(state >> 33) % pieces.count]
            }
            let bytes = Array(text.utf8)
            let safe = bytes.withUnsafeBytes { SafeText.isTerminalSafe($0) }
            #expect(safe == !SafeText.hasControlCharacters(text), "\(bytes)")
        }
        // Not UTF-8: a stray continuation byte, a cut sequence, an overlong form, a surrogate, past U+10FFFF.
        // Alone, and after a run of ASCII long enough to be read sixteen bytes at a time, at every offset.
        for bad: [UInt8] in [
            [0x80], [0x61, 0xC3], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x1B], [0x7F],
        ] {
            for lead in [0, 1, 15, 16, 17, 31, 40] {
                let bytes = [UInt8](repeating: 0x61, count: lead) + bad + [UInt8](repeating: 0x62, count: 20)
                #expect(!bytes.withUnsafeBytes { SafeText.isTerminalSafe($0) }, "\(bytes)")
            }
        }
    }
}
