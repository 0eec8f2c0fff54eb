import Foundation
import Testing

@testable import TextSafety

/// HTTP headers people read (ntfy's `Title`): one line, and non-ASCII as RFC 2047 words.
struct HeaderTextTests {
    /// The text RFC 2047 words stand for, decoded with Foundation's base64.
    func decoded(_ header: String) -> String? {
        var bytes = Data()
        for word in header.split(separator: " ") {
            guard word.hasPrefix("=?UTF-8?B?"), word.hasSuffix("?="),
                let data = Data(base64Encoded: String(word.dropFirst(10).dropLast(2)))
            else { return nil }
            bytes += data
        }
        return String(data: bytes, encoding: .utf8)
    }

    @Test("plain ASCII goes as it is; anything else as encoded words of at most 75 characters that decode back")
    func encodedWords() throws {
        #expect(SafeText.headerText("Claude session depleted") == "Claude session depleted")
        let text = "Claude Opus-Limit erreicht · Café ☕ " + String(repeating: "ü", count: 80)
        let header = SafeText.headerText(text, limit: 500)
        #expect(header.split(separator: " ").allSatisfy { $0.count <= 75 })
        #expect(header.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 })
        #expect(decoded(header) == text)
    }

    @Test("a line break or escape in a record never ends the header")
    func oneLine() {
        let header = SafeText.headerText("a\r\nX-Injected: 1\u{1B}[31m")
        #expect(!header.contains("\r") && !header.contains("\n") && !header.contains("\u{1B}"))
    }

    @Test("base64 as Foundation writes it, for every length modulo three")
    func base64() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<40 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(SafeText.base64(bytes) == Data(bytes).base64EncodedString())
        }
    }
}
