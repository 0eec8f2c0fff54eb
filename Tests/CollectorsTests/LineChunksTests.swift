import Foundation
import TestSupport
import Testing

@testable import Collectors

struct LineChunksTests {
    func pieces(_ text: String, pieceSize: Int, maximumLine: Int = 1 << 20) throws -> [String] {
        let root = TemporaryDirectory("aggctl-lines")
        let path = try root.write("log.jsonl", text)
        var pieces: [String] = []
        try LineChunks.forEachPiece(of: path, pieceSize: pieceSize, maximumLine: maximumLine) {
            pieces.append(String(decoding: $0, as: UTF8.self))
        }
        return pieces
    }

    @Test("every piece ends at a line break, and lines cut by a boundary arrive whole")
    func wholeLines() throws {
        let lines = (0..<200).map { "line \($0) " + String(repeating: "x", count: $0 % 37) }
        let text = lines.joined(separator: "\n") + "\n"
        for size in [8, 16, 64, 1000, 1 << 16] {
            let pieces = try pieces(text, pieceSize: size)
            #expect(pieces.allSatisfy { $0.hasSuffix("\n") })
            #expect(pieces.joined() == text, "piece size \(size)")
        }
    }

    @Test("a last line without a break is still delivered")
    func unterminatedLastLine() throws {
        #expect(try pieces("a\nb\nlast", pieceSize: 4).joined() == "a\nb\nlast")
    }

    @Test("a line longer than the limit is skipped, and its neighbours are not")
    func overlongLine() throws {
        let text = "before\n" + String(repeating: "y", count: 500) + "\nafter\n"
        let joined = try pieces(text, pieceSize: 16, maximumLine: 64).joined()
        #expect(joined.contains("before\n"))
        #expect(joined.contains("after\n"))
        #expect(!joined.contains("yyyy"))
    }
}
