import Foundation
import Snapshots
import TestSupport
import Testing

@testable import Collectors

/// OpenCode's database kept between runs: read back while it stays the same, read again when OpenCode
/// wrote to it. Rows are ccusage's asserted one (adapter/opencode/loader.rs at 5816e640), written by
/// Python's sqlite3 as OpenCode's own SQLite writes them.
struct OpenCodeCollectorTests {
    let folder = TemporaryDirectory("aggctl-opencode")
    static let row =
        #"{"providerID":"anthropic","modelID":"claude-sonnet-4-20250514","time":{"created":1767312000000},"tokens":{"input":120,"output":60,"cache":{"read":12,"write":24}},"cost":0.03}"#

    func insert(_ id: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            "-c",
            "import sqlite3, sys\nc = sqlite3.connect(sys.argv[1])\n"
                + "c.execute('CREATE TABLE IF NOT EXISTS message (id TEXT, session_id TEXT, data TEXT)')\n"
                + "c.execute('INSERT INTO message VALUES (?, ?, ?)', (sys.argv[2], 's', sys.argv[3]))\nc.commit()",
            folder.file("data/opencode.db"), id, Self.row,
        ]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        // Settled, as a database OpenCode last wrote a while ago: the memo may stand for it.
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: folder.file("data/opencode.db"))
    }

    @Test("read back while the database stays the same; read again once OpenCode wrote to it")
    func keptUntilChanged() throws {
        try FileManager.default.createDirectory(atPath: folder.file("data"), withIntermediateDirectories: true)
        try insert("m1")
        let collector = OpenCodeCollector(folder: folder.file("data"))
        let now = Records.date("2026-01-02T12:00:00Z")
        let first = try collector.gather(now: now, stateFolder: folder.path)
        #expect(first.usage.tokens?.today == 216 && first.ledgerFingerprint == nil, "read whole the first time")
        let again = try collector.gather(now: now, stateFolder: folder.path)
        #expect(again.usage.tokens?.today == 216)
        #expect(again.ledgerFingerprint != nil, "read back: the same rows as before")
        try insert("m2")
        let grown = try collector.gather(now: now, stateFolder: folder.path)
        #expect(grown.usage.tokens?.today == 432, "the new message counts")
        #expect(grown.ledger.map(\.totalTokens).reduce(0, +) == 432)
    }
}
