import CSQLite
import Portable

/// A database another program keeps (an agent's: OpenCode's, goose's, Cursor's `state.vscdb`), read and
/// never written, through libsqlite3 opened on first use.
///
/// - `.immutable` (for a database its agent may be writing right now): SQLite takes no lock and leaves no
///   journal beside it (`immutable=1`), so a write lock the agent holds never makes a read wait and the
///   agent never waits for aggctl. What a read sees is the last committed state, or a torn one while the
///   agent writes; callers read as hostile anyway.
/// - `.readOnly(waitingAtMost:)`: locks as SQLite does, a locked database retried for at most that long,
///   then a `.busy` error: never waited on forever.
///
/// The path is made a `file:` URI by percent-encoding it whole (never by pasting it in), so a path with
/// `?` or `#` names that file and nothing else.
public final class SQLiteDatabase {
    public enum Mode: Sendable, Equatable {
        case immutable
        case readOnly(waitingAtMost: Double)
    }

    public let path: String
    private let handle: UnsafeMutableRawPointer

    public init(path: String, mode: Mode) throws(SQLiteError) {
        self.path = path
        var uri = "file:" + Self.pathCharacters.encode(path) + "?mode=ro"
        var wait = 0
        switch mode {
        case .immutable: uri += "&immutable=1"
        case .readOnly(let seconds): wait = Int(max(0, min(seconds, 600)) * 1000)
        }
        var error: UnsafeMutablePointer<CChar>?
        guard let handle = aggctl_sqlite_open(uri, Int32(wait), &error) else {
            throw SQLiteError(file: path, reason: Self.take(error))
        }
        self.handle = handle
        // A database that is not one, or a file SQLite cannot read, says so at its first read: look now.
        do {
            try rows("SELECT 1 FROM sqlite_master LIMIT 1") { _ in }
        } catch {
            aggctl_sqlite_close(handle)
            throw error
        }
    }

    deinit { aggctl_sqlite_close(handle) }

    /// Runs `sql` with `parameters` bound in order, calling `body` with each row (valid only during the
    /// call), at most `limit` rows: a hostile database's millions of rows are not all read.
    public func rows(
        _ sql: String, _ parameters: [SQLiteValue] = [], limit: Int = 1_000_000, _ body: (SQLiteRow) throws -> Void
    ) throws(SQLiteError) {
        var error: UnsafeMutablePointer<CChar>?
        guard let statement = aggctl_sqlite_prepare(handle, sql, &error) else {
            throw SQLiteError(file: path, reason: Self.take(error))
        }
        defer { aggctl_sqlite_finalize(statement) }
        for (index, parameter) in parameters.enumerated() {
            let bound: Int32 =
                switch parameter {
                case .integer(let value): aggctl_sqlite_bind_int64(statement, Int32(index + 1), value)
                case .text(let value): aggctl_sqlite_bind_text(statement, Int32(index + 1), value)
                default: -1
                }
            guard bound == 0 else { throw SQLiteError(file: path, reason: "parameter \(index + 1) cannot be bound") }
        }
        var count = 0
        while count < limit {
            switch aggctl_sqlite_step(statement) {
            case 1:
                count += 1
                do {
                    try body(SQLiteRow(statement: statement))
                } catch {
                    throw SQLiteError(file: path, reason: "\(error)")
                }
            case 0: return
            case 2: throw SQLiteError(file: path, reason: "the database is locked by another program", isBusy: true)
            default: throw SQLiteError(file: path, reason: String(cString: aggctl_sqlite_errmsg(handle)))
            }
        }
    }

    /// RFC 3986 unreserved characters and `/` stay; everything else (`%`, `?`, `#`, spaces) is escaped.
    private static let pathCharacters = PercentEncoding(
        keeping: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/")

    private static func take(_ error: UnsafeMutablePointer<CChar>?) -> String {
        guard let error else { return "unknown error" }
        defer { aggctl_sqlite_free_error(error) }
        return String(cString: error)
    }
}

/// One row of a result, valid only while the `rows` call that gives it lasts.
public struct SQLiteRow {
    fileprivate let statement: UnsafeMutableRawPointer

    fileprivate init(statement: UnsafeMutableRawPointer) {
        self.statement = statement
    }

    public var count: Int { Int(aggctl_sqlite_column_count(statement)) }

    public subscript(_ column: Int) -> SQLiteValue {
        let index = Int32(column)
        switch aggctl_sqlite_column_type(statement, index) {
        case 1: return .integer(aggctl_sqlite_column_int64(statement, index))
        case 2: return .real(aggctl_sqlite_column_double(statement, index))
        case 3:
            var length: Int32 = 0
            guard let text = aggctl_sqlite_column_text(statement, index, &length) else { return .null }
            // Not NUL-terminated for us, and maybe not UTF-8: decoded with replacement, as any outside text.
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: Int(length)), as: UTF8.self))
        case 4: return .blob
        default: return .null
        }
    }
}

/// A column's value as SQLite stores it (a blob's bytes are not read: no source needs them).
public enum SQLiteValue: Sendable, Equatable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob
    case null

    public var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }
}

/// Why a database could not be read: one line naming the file.
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var reason: String
    /// Another program held a lock past the wait.
    public var isBusy = false

    public var description: String { "cannot read the database '\(file)': \(reason)" }
}
