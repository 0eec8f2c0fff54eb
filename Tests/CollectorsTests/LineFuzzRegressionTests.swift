import Foundation
import TestSupport
import Testing

@testable import Collectors

/// Log lines the fuzzers (`script/fuzz codex-line|claude-line`) found crashing a decoder, kept in
/// `Fuzz/Regressions/`: each must now decode or be ignored, without a trap.
struct LineFuzzRegressionTests {
    @Test(
        "Codex lines that crashed the decoder decode without a trap",
        arguments: Repository.fuzzRegressions("codex-line"))
    func codex(path: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        _ = data.withUnsafeBytes { CodexEventDecoder.decode($0) }
    }

    @Test(
        "Claude lines that crashed the decoder decode without a trap",
        arguments: Repository.fuzzRegressions("claude-line"))
    func claude(path: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        _ = data.withUnsafeBytes { ClaudeEventDecoder.decode($0) }
    }

    @Test("a count past Int's range, negative or not finite is no count")
    func wholeCounts() {
        #expect(wholeCount(1e300) == nil && wholeCount(-1) == nil && wholeCount(.infinity) == nil)
        #expect(wholeCount(12) == 12 && wholeCount(0) == 0)
    }
}
