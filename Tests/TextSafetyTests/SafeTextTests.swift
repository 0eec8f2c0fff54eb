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
    }

    @Test("CR, LF and NUL make a header value unsafe; other text is fine")
    func headers() {
        #expect(SafeText.isHeaderSafe("Bearer abc.def-ghi"))
        #expect(!SafeText.isHeaderSafe("abc\r\nX-Evil: 1"))
        #expect(!SafeText.isHeaderSafe("abc\nX"))
        #expect(!SafeText.isHeaderSafe("abc\u{0}"))
    }
}
