import Foundation
import Snapshots
import TestSupport
import Testing

@testable import Collectors

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A collector run with nothing new reads its last combination back instead of combining every file.
struct LogScanMemoTests {
    let folder = TemporaryDirectory("aggctl-scan-memo")
    let now = Records.date("2026-11-30T12:00:00Z")

    /// Dates every file under `path` an hour back, so that it counts as settled.
    func settle(_ path: String) {
        for file in DirectoryWalk.files(under: [path], where: { _ in true }).map(\.path) {
            var times = [
                timespec(tv_sec: time(nil) - 3600, tv_nsec: 0), timespec(tv_sec: time(nil) - 3600, tv_nsec: 0),
            ]
            _ = utimensat(AT_FDCWD, file, &times, 0)
        }
    }

    /// `paths` as the walk finds them, each with its identity now.
    func examined<Paths: Sequence<String>>(_ paths: Paths) -> [DirectoryWalk.Found] {
        paths.map { DirectoryWalk.Found(path: $0, identity: fileIdentity($0)) }
    }

    /// A copy of the fixture folder `fixture` under the test's folder as `name`, its files settled.
    func settledCopy(of fixture: String, as name: String) throws -> String {
        let home = folder.file(name)
        try FileManager.default.copyItem(
            atPath: Repository.path("Tests/CollectorsTests/Fixtures/" + fixture), toPath: home)
        settle(home)
        return home
    }

    /// Removes the per-file state (`.scan`) from `state`, so that only a memo can answer; the names that were there.
    func removeScanState(in state: String) throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: state)
        for name in names where name.hasSuffix(".scan") {
            try FileManager.default.removeItem(atPath: state + "/" + name)
        }
        return names
    }

    @Test("the fingerprint is the files' whatever their order, and changes with any name, size, time or count")
    func fingerprint() throws {
        let names = (0..<40).map { "logs/\($0 % 7)/session-\($0).jsonl" }
        for name in names { try folder.write(name, "{}\n") }
        settle(folder.file("logs"))
        let files = names.map(folder.file)
        let fingerprint = try #require(LogScanMemo.fingerprint(of: examined(files)))
        var generator = SeededGenerator(seed: 3)
        for _ in 0..<5 {
            #expect(LogScanMemo.fingerprint(of: examined(files.shuffled(using: &generator))) == fingerprint)
        }
        #expect(LogScanMemo.fingerprint(of: examined(Array(files.dropLast()))) != fingerprint)
        #expect(LogScanMemo.fingerprint(of: examined(files + [files[0]])) != fingerprint)
        try TemporaryDirectory.append("{}\n", to: files[5])
        settle(folder.file("logs"))
        let grown = try #require(LogScanMemo.fingerprint(of: examined(files)))
        #expect(grown != fingerprint)
        var times = [timespec(tv_sec: time(nil) - 7200, tv_nsec: 0), timespec(tv_sec: time(nil) - 7200, tv_nsec: 0)]
        _ = utimensat(AT_FDCWD, files[9], &times, 0)
        let touched = try #require(LogScanMemo.fingerprint(of: examined(files)))
        #expect(touched != grown)
        try FileManager.default.moveItem(atPath: files[0], toPath: folder.file("logs/renamed.jsonl"))
        #expect(
            LogScanMemo.fingerprint(of: examined([folder.file("logs/renamed.jsonl")] + files.dropFirst())) != touched)
    }

    @Test("gemini: the memo's per-day totals give what reading every session gives")
    func geminiMemo() throws {
        let home = try settledCopy(of: "gemini-home", as: "gemini")
        let state = folder.file("state-gemini")
        let read = try GeminiCollector(home: home).collect(now: now, stateFolder: state)
        let names = try removeScanState(in: state)
        #expect(names.contains { $0.hasSuffix(".memo") }, "\(names)")
        let remembered = try GeminiCollector(home: home).collect(now: now, stateFolder: state)
        #expect(remembered == read)
        #expect(remembered == (try GeminiCollector(home: home).collect(now: now)))
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: state)).contains { $0.hasSuffix(".scan") })
    }

    @Test("nothing changed: the memo stands even without the per-file state; a changed file is read again")
    func memo() throws {
        let home = try settledCopy(of: "claude-home", as: "claude")
        let state = folder.file("state")
        let first = try ClaudeCollector(folders: [home]).collect(now: now, stateFolder: state)
        // Without the per-file state a full run would write it again: the memo answered, and no log was read.
        let memo = try #require(try removeScanState(in: state).first { $0.hasSuffix(".memo") })
        let second = try ClaudeCollector(folders: [home]).collect(now: now, stateFolder: state)
        #expect(second == first)
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: state)).contains { $0.hasSuffix(".scan") })

        let log = try #require(
            DirectoryWalk.files(under: [home + "/projects"], where: { $0.hasSuffix(".jsonl") }).first?.path)
        try TemporaryDirectory.append(
            #"{"type":"assistant","timestamp":"2026-11-30T11:00:00.000Z","requestId":"req_new","message":{"id":"msg_new","model":"claude-sonnet-4-5-20250929","usage":{"input_tokens":1000,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}"#
                + "\n", to: log)
        settle(home)
        let third = try ClaudeCollector(folders: [home]).collect(now: now, stateFolder: state)
        #expect(third.tokens?.today == (first.tokens?.today ?? 0) + 1000)
        #expect(FileManager.default.fileExists(atPath: state + "/" + memo))
    }
}
