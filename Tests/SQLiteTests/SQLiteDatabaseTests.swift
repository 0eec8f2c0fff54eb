import Foundation
import SQLite
import TestSupport
import Testing

/// Reading another program's database through libsqlite3: databases written by Python's sqlite3 module (a
/// real SQLite), one of them held under a write lock by another process, as an agent holds its own.
struct SQLiteDatabaseTests {
    let folder = TemporaryDirectory("aggctl-sqlite")

    /// Runs Python's sqlite3 on `path` with `script` (SQL statements), committing them.
    func make(_ name: String, _ script: String) throws -> String {
        let path = folder.file(name)
        let run = try Self.python(
            "import sqlite3, sys\nc = sqlite3.connect(sys.argv[1])\nc.executescript(sys.argv[2])\nc.commit()\n", path,
            script)
        #expect(run.status == 0, "\(run.errors)")
        return path
    }

    static func python(_ program: String, _ arguments: String...) throws -> (status: Int32, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", program] + arguments
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        return (
            process.terminationStatus,
            String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        )
    }

    @Test("rows of every kind come back as written; parameters are bound, never pasted into the SQL")
    func readsRows() throws {
        let path = try make(
            "usage.db",
            """
            CREATE TABLE message (id TEXT, tokens INTEGER, cost REAL, data TEXT, raw BLOB);
            INSERT INTO message VALUES ('m1', 1200, 0.5, '{"model":"gpt-5"}', x'00ff');
            INSERT INTO message VALUES ('m2''; DROP TABLE message; --', NULL, NULL, 'é', NULL);
            """)
        let database = try SQLiteDatabase(path: path, mode: .immutable)
        var rows: [[SQLiteValue]] = []
        try database.rows("SELECT id, tokens, cost, data, raw FROM message ORDER BY id") { row in
            rows.append((0..<row.count).map { row[$0] })
        }
        #expect(rows.count == 2)
        #expect(rows.first == [.text("m1"), .integer(1200), .real(0.5), .text(#"{"model":"gpt-5"}"#), .blob])
        #expect(rows.last?[1] == .null && rows.last?[3] == .text("é"))
        var found: [String] = []
        try database.rows("SELECT id FROM message WHERE id = ?", [.text("m2'; DROP TABLE message; --")]) {
            found.append($0[0].text ?? "")
        }
        #expect(found == ["m2'; DROP TABLE message; --"])
        var limited = 0
        try database.rows("SELECT id FROM message", limit: 1) { _ in limited += 1 }
        #expect(limited == 1, "a limit stops the read")
    }

    @Test("a database another process holds under a write lock: read at once, left as it was, no file added")
    func lockedByItsAgent() throws {
        let path = try make(
            "state.vscdb", "CREATE TABLE ItemTable (key TEXT, value TEXT); INSERT INTO ItemTable VALUES ('a', '1');")
        // The agent: an exclusive transaction with a write not yet committed, held until the test ends.
        let ready = folder.file("locked")
        let holder = try SpawnedProcess(
            [
                "python3", "-c",
                """
                import sqlite3, sys, time
                c = sqlite3.connect(sys.argv[1], isolation_level=None)
                c.execute('BEGIN EXCLUSIVE')
                c.execute("INSERT INTO ItemTable VALUES ('b', '2')")
                open(sys.argv[2], 'w').close()
                time.sleep(60)
                """, path, ready,
            ], output: folder.file("holder.log"))
        defer {
            holder.send(SIGKILL)
            holder.waitForExit(timeout: 10)
        }
        for _ in 0..<500 where !FileManager.default.fileExists(atPath: ready) { usleep(10_000) }
        try #require(FileManager.default.fileExists(atPath: ready), "the holder took its lock")
        let before = try FileManager.default.attributesOfItem(atPath: path)
        let entriesBefore = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()

        let started = Date()
        var keys: [String] = []
        try SQLiteDatabase(path: path, mode: .immutable).rows("SELECT key FROM ItemTable ORDER BY key") {
            keys.append($0[0].text ?? "")
        }
        #expect(Date().timeIntervalSince(started) < 1, "no wait for the agent's lock")
        #expect(keys == ["a"], "the committed state, not the agent's uncommitted write")
        let after = try FileManager.default.attributesOfItem(atPath: path)
        #expect(after[.modificationDate] as? Date == before[.modificationDate] as? Date)
        #expect(after[.size] as? Int == before[.size] as? Int)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == entriesBefore)

        // Read with locks, the same database is busy: said after the wait, never waited on forever.
        let waiting = Date()
        #expect(throws: SQLiteError.self) {
            try SQLiteDatabase(path: path, mode: .readOnly(waitingAtMost: 0.2)).rows("SELECT key FROM ItemTable") { _ in
            }
        }
        #expect(Date().timeIntervalSince(waiting) < 5)
    }

    @Test("a missing file, a file that is no database and a path with ? and # are one clear line each")
    func refusals() throws {
        do {
            _ = try SQLiteDatabase(path: folder.file("missing.db"), mode: .immutable)
            Issue.record("a missing database opened")
        } catch {
            #expect(error.description.hasPrefix("cannot read the database '\(folder.file("missing.db"))': "))
        }
        let text = try folder.write("notes.db", String(repeating: "not a database\n", count: 100))
        #expect(throws: SQLiteError.self) { _ = try SQLiteDatabase(path: text, mode: .immutable) }
        let odd = try make("a?b#c %20.db", "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (7);")
        var values: [SQLiteValue] = []
        try SQLiteDatabase(path: odd, mode: .immutable).rows("SELECT x FROM t") { values.append($0[0]) }
        #expect(values == [.integer(7)], "the path names that file, nothing else")
    }
}
