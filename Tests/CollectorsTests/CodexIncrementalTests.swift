import Foundation
import Snapshots
import TestSupport
import Testing

@testable import Collectors

/// Incremental scanning: every run must give what a full scan gives, reading only what changed.
struct CodexIncrementalTests {
    let root = TemporaryDirectory("aggctl-codex")
    var home: String { root.file("codex") }
    var state: String { root.file("state") }
    let now = Records.date("2026-11-30T12:00:00Z")

    init() throws {
        try FileManager.default.copyItem(atPath: CodexCollectorTests.fixture, toPath: root.file("codex"))
    }

    var files: [String] { try! CodexCollector(home: home).logFiles().map(\.path) }

    func incremental() throws -> ProviderUsage {
        try CodexCollector(home: home).collect(now: now, stateFolder: state, readerVersion: "test")
    }

    func full() throws -> ProviderUsage {
        try CodexCollector(home: home).collect(now: now)
    }

    func event(_ at: String, tokens: Int, used: Double) -> String {
        #"{"timestamp":"\#(at)","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"total_tokens":\#(tokens)}},"rate_limits":{"primary":{"used_percent":\#(used),"window_minutes":300,"resets_at":1796050000},"secondary":{"used_percent":5,"window_minutes":10080,"resets_at":1796400000}}}}"#
    }

    @Test("a run with nothing new gives the same result without reading the logs again")
    func nothingNew() throws {
        let first = try incremental()
        #expect(first == (try full()))
        // Same size, same time: a rewrite the state cannot see proves the file is not read.
        let file = files[0]
        var info = stat()
        #expect(stat(file, &info) == 0)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        try handle.write(contentsOf: Data(repeating: 0x20, count: Int(info.st_size)))
        try handle.close()
        // The exact modification time back, to the nanosecond.
        #if canImport(Darwin)
            var times = [info.st_atimespec, info.st_mtimespec]
        #else
            var times = [info.st_atim, info.st_mtim]
        #endif
        #expect(utimensat(AT_FDCWD, file, &times, 0) == 0)
        #expect(try incremental() == first)
    }

    @Test("appended events are read once, and a line still being written waits until it is whole")
    func appended() throws {
        _ = try incremental()
        let file = files.last!
        let line = event("2026-11-30T11:00:00Z", tokens: 777, used: 61.5)
        try TemporaryDirectory.append(line + "\n" + String(line.prefix(40)), to: file)
        let second = try incremental()
        #expect(second == (try full()))
        #expect(second.session?.usedPercent == 61.5)
        #expect(
            second.tokens?.today == (try CodexCollector(home: CodexCollectorTests.fixture).collect(now: now)).tokens!
                .today! + 777)
        try TemporaryDirectory.append(
            String(line.dropFirst(40)).replacingOccurrences(of: "777", with: "1000") + "\n", to: file)
        let third = try incremental()
        #expect(third == (try full()))
        #expect(third.tokens?.today == second.tokens!.today! + 1000)
    }

    @Test("a truncated, replaced or removed file is read again from the start")
    func rewritten() throws {
        _ = try incremental()
        let truncated = files[0]
        let lines = try String(contentsOfFile: truncated, encoding: .utf8).split(separator: "\n")
        try (lines.prefix(lines.count / 2).joined(separator: "\n") + "\n").write(
            toFile: truncated, atomically: false, encoding: .utf8)
        #expect(try incremental() == (try full()))
        let replaced = files[1]
        try (event("2026-11-30T11:30:00Z", tokens: 5, used: 70) + "\n").write(
            toFile: replaced, atomically: true, encoding: .utf8)
        #expect(try incremental() == (try full()))
        try FileManager.default.removeItem(atPath: files[2])
        #expect(try incremental() == (try full()))
    }

    @Test("a damaged state is ignored, and the logs are read afresh")
    func damagedState() throws {
        _ = try incremental()
        let saved = try FileManager.default.contentsOfDirectory(atPath: state)
        #expect(saved.count == 1)
        try Data("damaged".utf8).write(to: URL(fileURLWithPath: state + "/" + saved[0]))
        #expect(try incremental() == (try full()))
    }
}
