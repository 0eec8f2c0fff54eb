import Portable
import TestSupport
import Testing

struct ByteOrderTests {
    /// Texts that share long beginnings, differ in length, are empty, or hold characters of several bytes
    /// (composed and decomposed forms of one letter among them), or end in NUL bytes (which a short text's
    /// zero-padded prefix cannot tell from its end).
    func texts(_ count: Int, seed: UInt64) -> [String] {
        var generator = SeededGenerator(seed: seed)
        let pieces = [
            "/home/user/.codex/sessions/2026/11/", "a", "B", "z", "-", "/", "é", "e\u{301}", "😀", "\u{0}", "",
        ]
        return (0..<count).map { _ in
            (0..<Int.random(in: 0...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
                .joined()
        }
    }

    @Test("sorted, sortedIndices and precedes all give the order of the UTF-8 bytes")
    func agreeWithTheBytes() {
        for seed in 1...20 {
            let texts = texts(300, seed: UInt64(seed))
            let expected = texts.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
            #expect(ByteOrder.sorted(texts).map { Array($0.utf8) } == expected)
            #expect(ByteOrder.sortedIndices(texts).map { Array(texts[$0].utf8) } == expected)
            #expect(texts.sorted(by: ByteOrder.precedes).map { Array($0.utf8) } == expected)
        }
        #expect(ByteOrder.sorted([]) == [])
    }
}
