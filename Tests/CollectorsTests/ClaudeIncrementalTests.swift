import Foundation
import Snapshots
import TestSupport
import Testing

@testable import Collectors

/// Incremental scanning of Claude Code logs: a response is still counted once when its lines, or copies
/// of it in other files, arrive in different runs.
struct ClaudeIncrementalTests {
    let root = TemporaryDirectory("aggctl-claude")
    var folder: String { root.file("claude") }
    var state: String { root.file("state") }
    let now = Records.date("2026-11-30T12:00:00Z")

    init() throws {
        try FileManager.default.copyItem(atPath: ClaudeCollectorTests.fixture, toPath: folder)
    }

    var files: [String] { try! ClaudeCollector(folders: [folder]).logFiles().map(\.path) }

    func incremental() throws -> ProviderUsage {
        try ClaudeCollector(folders: [folder]).collect(now: now, stateFolder: state, readerVersion: "test")
    }

    func full() throws -> ProviderUsage {
        try ClaudeCollector(folders: [folder]).collect(now: now)
    }

    func response(_ id: String, at: String, input: Int) -> String {
        #"{"type":"assistant","timestamp":"\#(at)","requestId":"req_\#(id)","message":{"id":"msg_\#(id)","model":"claude-sonnet-4-5-20250929","usage":{"input_tokens":\#(input),"output_tokens":0}}}"#
    }

    @Test("a run with nothing new gives what a full scan gives")
    func nothingNew() throws {
        let first = try incremental()
        #expect(first == (try full()))
        #expect(try incremental() == first)
        #expect(try FileManager.default.contentsOfDirectory(atPath: state).count == 1)
    }

    @Test("an appended response is counted once, even when its lines arrive in different runs and files")
    func appended() throws {
        let before = try incremental()
        let line = response("new1", at: "2026-11-30T11:00:00Z", input: 1234)
        try TemporaryDirectory.append(line + "\n" + String(line.prefix(30)), to: files[0])
        let second = try incremental()
        #expect(second == (try full()))
        #expect(second.tokens?.today == before.tokens!.today! + 1234)
        // The half-written line, once whole, is another line of the same response; so is a copy elsewhere.
        try TemporaryDirectory.append(String(line.dropFirst(30)) + "\n", to: files[0])
        try TemporaryDirectory.append(line + "\n", to: files[1])
        let third = try incremental()
        #expect(third == (try full()))
        #expect(third.tokens?.today == second.tokens?.today)
        #expect(third.costUSD?.today == second.costUSD?.today)
    }

    @Test("responses older than the 30 reported days leave the state, and the newest time stays")
    func pruned() throws {
        let first = try incremental()
        func stateSize() throws -> Int {
            let name = try FileManager.default.contentsOfDirectory(atPath: state)[0]
            return try FileManager.default.attributesOfItem(atPath: state + "/" + name)[.size] as! Int
        }
        let before = try stateSize()
        let later = now.addingTimeInterval(60 * 86_400)
        let entry = try ClaudeCollector(folders: [folder]).collect(
            now: later, stateFolder: state, readerVersion: "test")
        #expect(entry.tokens?.last30Days == 0)
        #expect(entry.lastUpdated == first.lastUpdated)
        var kept = LogScanState<ClaudeCollector.FileScan>()
        kept.load(
            from: state + "/" + (try FileManager.default.contentsOfDirectory(atPath: state)[0]), readerVersion: "test")
        #expect(kept.files.count == files.count)
        #expect(kept.files.values.allSatisfy { $0.partial.responses.isEmpty })
        #expect(try stateSize() < before)
    }

    @Test("a file replaced by a rewritten one is read again from the start")
    func replaced() throws {
        _ = try incremental()
        try (response("only", at: "2026-11-30T09:00:00Z", input: 10) + "\n").write(
            toFile: files[2], atomically: true, encoding: .utf8)
        #expect(try incremental() == (try full()))
    }

    @Test(
        "a scan state whose fingerprinted head is past 4 KiB or whose offset is negative is ignored: the logs are read again"
    )
    func damagedStateIsIgnored() throws {
        _ = try incremental()
        let path = LogScanState<ClaudeCollector.FileScan>.path(in: state, name: "claude", root: folder)
        var kept = LogScanState<ClaudeCollector.FileScan>()
        kept.load(from: path, readerVersion: "test")
        #expect(!kept.files.isEmpty)
        for damage in [
            { (entry: inout LogScanState<ClaudeCollector.FileScan>.FileEntry) in entry.headLength = 1 << 40 },
            { entry in entry.offset = -1 },
        ] {
            var damaged = kept
            for name in damaged.files.keys { damage(&damaged.files[name]!) }
            try damaged.save(to: path, readerVersion: "test")
            var again = LogScanState<ClaudeCollector.FileScan>()
            again.load(from: path, readerVersion: "test")
            #expect(again.files.isEmpty)
            // A file that grew is where the head would be read again: the run reads everything instead.
            try FileHandle(forWritingAtPath: files[0]).map { handle in
                handle.seekToEndOfFile()
                handle.write(Data((response("grown-\(damage)", at: "2026-11-30T09:30:00Z", input: 7) + "\n").utf8))
                try handle.close()
            }
            #expect(try incremental() == (try full()))
        }
    }
}
