import Portable
import Pricing
import Serialization
import Snapshots

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What reading some complete lines of one log file yields; reading the lines after them extends it.
protocol LogScanPartial: Sendable {
    /// The first bytes of the state file, naming the agent.
    static var magic: String { get }
    init()
    /// Adds what the lines after this partial's lines yield.
    mutating func append(_ later: Self)
    /// What a piece of complete lines yields, leaving out what happened before `cutoff` where the
    /// partial would otherwise grow with the history; times in words are read in `zones`.
    static func read(_ bytes: UnsafeRawBufferPointer, keepingSince cutoff: Date, reading: LogReading) -> Self
    /// Leaves out what happened before `cutoff`; true when anything was left out.
    mutating func prune(before cutoff: Date) -> Bool
    func encode(into out: inout BinaryWriter)
    static func decode(from input: inout BinaryReader) throws -> Self
    /// Whether `file` is one document rewritten as it grows (Gemini CLI's `session-*.json`), read whole
    /// whenever it changed, rather than a log that is appended to.
    static func isWholeDocument(_ file: String) -> Bool
}

extension LogScanPartial {
    static func isWholeDocument(_ file: String) -> Bool { false }
}

/// What earlier runs learned from each log file of one agent, so that a run reads only what was appended
/// since. Agent logs are append-only JSONL, and a machine's history grows to gigabytes.
///
/// Per file: its inode, size and modification time at the last scan, the offset just past the last
/// complete line read, a fingerprint of the bytes before it (at most the first 4 KiB), and that file's
/// partial result. A file unchanged in inode, size and time is not opened; one that grew with the same
/// beginning is read from the offset; one that shrank, was rewritten or replaced is read again whole.
/// Kept in the state directory in the checksummed binary form of the caches; a damaged file is ignored.
struct LogScanState<Partial: LogScanPartial>: Sendable {
    static var format: UInt32 { 4 }
    static var headLength: Int { 4096 }

    struct FileEntry: Sendable {
        var inode: UInt64
        var size: Int64
        var modified: Int64
        var offset: Int
        var headLength: Int
        var head: UInt64
        var partial: Partial
        /// Read or pruned in this run, so the state must be saved (not kept in the file).
        var isChanged = false
    }

    var files: [String: FileEntry] = [:]
    /// The size of the state file this was loaded from: the next one is about as large, and is written
    /// into a buffer of that size at once (growing it by doubling copied Codex's 10 MB state twice over).
    var loadedSize = 0

    /// The partial results of `files`, in the byte order of their paths: reused, extended or read anew on every core, with
    /// the state at `statePath` (nil: read everything, keep nothing) brought up to date. What happened
    /// before `cutoff` is left out where a partial would grow with the history.
    ///
    /// Each file is judged by the identity the walk took (`DirectoryWalk.Found`), the same the memo's
    /// fingerprint was taken from, not by a second `stat` of its whole path.
    static func partials(
        of found: [DirectoryWalk.Found], statePath: String?, readerVersion: String,
        keepingSince cutoff: Date = .distantPast, reading: LogReading
    ) throws -> [Partial] {
        try partialsByPath(
            of: found, statePath: statePath, readerVersion: readerVersion, keepingSince: cutoff, reading: reading
        ).map(\.partial)
    }

    /// `partials(of:...)` with the path each was read from, for a collector that judges files against
    /// each other (Codex's forks name their parent by its file's session id).
    static func partialsByPath(
        of found: [DirectoryWalk.Found], statePath: String?, readerVersion: String,
        keepingSince cutoff: Date = .distantPast, reading: LogReading
    ) throws -> [(path: String, partial: Partial)] {
        // In the byte order of their paths, whatever order they were found in: the same on every run.
        let files = ByteOrder.order(of: found.map(\.path)).map { found[$0] }
        var loaded = LogScanState()
        if let statePath { loaded.load(from: statePath, readerVersion: readerVersion) }
        let previous = loaded
        let pieces = Parallel.evenPieces(files.count, minimumPerWorker: 4)
        let entries = try Parallel.makeArray(count: files.count, pieces: pieces) { piece, emit in
            for index in pieces[piece] {
                let file = files[index]
                emit(try entry(for: file, previous: previous.files[file.path], keepingSince: cutoff, reading: reading))
            }
        }
        var next = LogScanState()
        for (file, entry) in zip(files, entries) { next.files[file.path] = entry }
        let changed = next.files.count != previous.files.count || entries.contains(where: \.isChanged)
        next.loadedSize = previous.loadedSize
        if let statePath, changed { try? next.save(to: statePath, readerVersion: readerVersion) }
        return zip(files, entries).map { ($0.path, $1.partial) }
    }

    /// Where the state of the logs under `root` lives: one file per agent and log folder.
    static func path(in folder: String, name: String, root: String) -> String {
        folder + "/" + name + "-" + String(BinaryWriter.fnv1a(root.utf8), radix: 16) + ".scan"
    }

    /// A document read whole, in one piece (at most the size limit of a record: 32 MiB).
    static func wholeDocument(
        _ file: String, now: (inode: UInt64, size: Int64, modified: Int64), keepingSince cutoff: Date,
        reading: LogReading
    ) throws -> FileEntry {
        guard now.size <= Int64(RecordCodec.maximumRecordSize), let data = FileSystem.contents(of: file)
        else { throw CollectorError("cannot read '\(file)' (unreadable, or over 32 MiB)") }
        let partial = data.withUnsafeBytes { Partial.read($0, keepingSince: cutoff, reading: reading) }
        return FileEntry(
            inode: now.inode, size: now.size, modified: now.modified, offset: data.count, headLength: 0, head: 0,
            partial: partial, isChanged: true)
    }

    /// What `found` holds now, reading as little as `previous` allows.
    static func entry(
        for found: DirectoryWalk.Found, previous: FileEntry?, keepingSince cutoff: Date, reading: LogReading
    ) throws -> FileEntry {
        let file = found.path
        guard let now = found.identity else { throw CollectorError("cannot read '\(file)'") }
        if var entry = previous, entry.inode == now.inode {
            entry.isChanged = entry.partial.prune(before: cutoff)
            if entry.size == now.size && entry.modified == now.modified { return entry }
            if Partial.isWholeDocument(file) {
                return try wholeDocument(file, now: now, keepingSince: cutoff, reading: reading)
            }
            // Grown with the same beginning: only what was appended is read.
            if now.size >= Int64(entry.offset), head(of: file, length: entry.headLength) == entry.head {
                var appended = Partial()
                entry.offset = try LineChunks.forEachPiece(of: file, from: entry.offset, completeLinesOnly: true) {
                    appended.append(Partial.read($0, keepingSince: cutoff, reading: reading))
                }
                entry.partial.append(appended)
                (entry.size, entry.modified, entry.isChanged) = (now.size, now.modified, true)
                if entry.headLength < headLength {
                    entry.headLength = min(headLength, entry.offset)
                    entry.head = head(of: file, length: entry.headLength) ?? 0
                }
                return entry
            }
        }
        if Partial.isWholeDocument(file) {
            return try wholeDocument(file, now: now, keepingSince: cutoff, reading: reading)
        }
        // New, shrunk, rewritten or replaced: read from the start.
        var partial = Partial()
        let offset = try LineChunks.forEachPiece(of: file, completeLinesOnly: true) {
            partial.append(Partial.read($0, keepingSince: cutoff, reading: reading))
        }
        let length = min(headLength, offset)
        return FileEntry(
            inode: now.inode, size: now.size, modified: now.modified, offset: offset, headLength: length,
            head: head(of: file, length: length) ?? 0, partial: partial, isChanged: true)
    }

    mutating func load(from path: String, readerVersion: String) {
        guard let data = FileSystem.contents(of: path),
            let decoded = try? decode(data, readerVersion: readerVersion)
        else { return }
        files = decoded
        loadedSize = data.count
    }

    func save(to path: String, readerVersion: String) throws {
        var out = BinaryWriter(capacity: max(256 + files.count * 256, loadedSize + 65_536))
        out.header(magic: Array(Partial.magic.utf8), format: Self.format, readerVersion: readerVersion)
        out.u32(UInt32(files.count))
        for (name, entry) in files {
            out.string(name)
            out.u64(entry.inode)
            out.u64(UInt64(bitPattern: entry.size))
            out.u64(UInt64(bitPattern: entry.modified))
            out.int(entry.offset)
            out.int(entry.headLength)
            out.u64(entry.head)
            entry.partial.encode(into: &out)
        }
        try AtomicFile.writePrivate(out.sealed(), to: path)
    }

    func decode(_ data: Data, readerVersion: String) throws -> [String: FileEntry] {
        try BinaryReader.unseal(
            data, magic: Array(Partial.magic.utf8), format: Self.format, readerVersion: readerVersion
        ) { input in
            var files: [String: FileEntry] = [:]
            for _ in 0..<Int(try input.u32()) {
                let name = try input.string()
                let entry = FileEntry(
                    inode: try input.u64(), size: Int64(bitPattern: try input.u64()),
                    modified: Int64(bitPattern: try input.u64()), offset: try input.int(), headLength: try input.int(),
                    head: try input.u64(), partial: try Partial.decode(from: &input))
                // A head past the fingerprint's 4 KiB, or an offset before the start, is damage: the head
                // is read again into a buffer of its length.
                guard entry.offset >= 0, (0...Self.headLength).contains(entry.headLength) else {
                    throw BinaryReader.Corrupt()
                }
                files[name] = entry
            }
            return files
        }
    }

    /// A fingerprint of the file's first `length` bytes.
    static func head(of path: String, length: Int) -> UInt64? {
        guard length > 0 else { return 0 }
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: length)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, length) }
        guard count == length else { return nil }
        return bytes.withUnsafeBytes { BinaryWriter.checksum($0) }
    }
}

/// A file's identity now: inode, size and modification time (nanoseconds), what tells a log file
/// unchanged (`LogScanState`, `LogScanMemo`); nil when it cannot be examined.
func fileIdentity(_ path: String) -> FileIdentity? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return fileIdentity(info)
}

/// A file's inode, size and modification time (nanoseconds since 1970): what says it is as it was.
typealias FileIdentity = (inode: UInt64, size: Int64, modified: Int64)

func fileIdentity(_ info: stat) -> FileIdentity {
    #if canImport(Darwin)
        let time = info.st_mtimespec
    #else
        let time = info.st_mtim
    #endif
    return (UInt64(info.st_ino), Int64(info.st_size), Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec))
}

/// What a log is read with besides its bytes: the zones its limit messages' times are in, and the prices
/// its responses are costed by.
public struct LogReading: Sendable {
    public var zones: Zones
    public var prices: PriceSource

    public init(zones: Zones, prices: PriceSource = .bundled) {
        self.zones = zones
        self.prices = prices
    }
}
