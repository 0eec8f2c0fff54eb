import Foundation
import Snapshots

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What earlier runs learned from each Codex log file, so that a run reads only what was appended since.
///
/// Per file: its inode, size and modification time at the last scan, the offset just past the last
/// complete line read, a fingerprint of the bytes before it (at most the first 4 KiB), and that file's
/// partial result. A file unchanged in inode, size and time is not opened; one that grew with the same
/// beginning is read from the offset; one that shrank, was rewritten or replaced is read again whole.
/// Kept in the state directory in the checksummed binary form of the caches; a damaged file is ignored.
struct CodexScanState {
    static let magic: [UInt8] = Array("AGGCODEX".utf8)
    static let format: UInt32 = 1
    static let headLength = 4096

    struct FileEntry {
        var inode: UInt64
        var size: Int64
        var modified: Int64
        var offset: Int
        var headLength: Int
        var head: UInt64
        var scan: CodexCollector.Scan
    }

    var files: [String: FileEntry] = [:]

    static func path(in folder: String, home: String) -> String {
        var hash = BinaryWriter.fnv1aOffset
        for byte in home.utf8 { hash = (hash ^ UInt64(byte)) &* BinaryWriter.fnv1aPrime }
        return folder + "/codex-" + String(hash, radix: 16) + ".scan"
    }

    static func load(from path: String, readerVersion: String) -> CodexScanState {
        guard let data = FileManager.default.contents(atPath: path) else { return CodexScanState() }
        return (try? decode(data, readerVersion: readerVersion)) ?? CodexScanState()
    }

    func save(to path: String, readerVersion: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        var out = BinaryWriter(capacity: 256 + files.count * 256)
        out.raw(CodexScanState.magic)
        out.u32(CodexScanState.format)
        out.string(readerVersion)
        out.u32(UInt32(files.count))
        for (name, entry) in files {
            out.string(name)
            out.u64(entry.inode)
            out.u64(UInt64(bitPattern: entry.size))
            out.u64(UInt64(bitPattern: entry.modified))
            out.int(entry.offset)
            out.int(entry.headLength)
            out.u64(entry.head)
            out.scan(entry.scan)
        }
        out.u64(out.checksum)
        try AtomicFile.write(out.data, to: path)
    }

    static func decode(_ data: Data, readerVersion: String) throws -> CodexScanState {
        try data.withUnsafeBytes { buffer in
            guard buffer.count >= 16 else { throw BinaryReader.Corrupt() }
            let body = UnsafeRawBufferPointer(rebasing: buffer[0..<(buffer.count - 8)])
            var tail = BinaryReader(UnsafeRawBufferPointer(rebasing: buffer[(buffer.count - 8)...]))
            guard try tail.u64() == BinaryWriter.checksum(body) else { throw BinaryReader.Corrupt() }
            var input = BinaryReader(body)
            guard try input.raw(magic.count) == magic, try input.u32() == format, try input.string() == readerVersion
            else { throw BinaryReader.Corrupt() }
            var state = CodexScanState()
            for _ in 0..<Int(try input.u32()) {
                let name = try input.string()
                state.files[name] = FileEntry(
                    inode: try input.u64(), size: Int64(bitPattern: try input.u64()),
                    modified: Int64(bitPattern: try input.u64()), offset: try input.int(), headLength: try input.int(),
                    head: try input.u64(), scan: try input.scan())
            }
            guard input.isAtEnd else { throw BinaryReader.Corrupt() }
            return state
        }
    }

    /// The file's identity now, and a fingerprint of its first `length` bytes.
    static func examine(_ path: String) -> (inode: UInt64, size: Int64, modified: Int64)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        #if canImport(Darwin)
            let time = info.st_mtimespec
        #else
            let time = info.st_mtim
        #endif
        return (UInt64(info.st_ino), Int64(info.st_size), Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec))
    }

    static func head(of path: String, length: Int) -> UInt64? {
        guard length > 0 else { return 0 }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: length)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, length) }
        guard count == length else { return nil }
        return bytes.withUnsafeBytes { BinaryWriter.checksum($0) }
    }
}

extension BinaryWriter {
    mutating func scan(_ scan: CodexCollector.Scan) {
        optional(scan.latest) { out, limits in
            out.date(limits.at)
            out.optional(limits.primary) { $0.window($1) }
            out.optional(limits.secondary) { $0.window($1) }
            out.optionalString(limits.plan)
        }
        u32(UInt32(scan.tokensByDay.count))
        for (day, tokens) in scan.tokensByDay {
            string(day)
            int(tokens)
        }
        optionalDate(scan.newestEvent)
    }
}

extension BinaryReader {
    mutating func scan() throws -> CodexCollector.Scan {
        var scan = CodexCollector.Scan()
        scan.latest = try optional { reader in
            CodexCollector.RateLimits(
                at: try reader.date(), primary: try reader.optional { try $0.window() },
                secondary: try reader.optional { try $0.window() }, plan: try reader.optionalString())
        }
        for _ in 0..<Int(try u32()) {
            let day = try string()
            scan.tokensByDay[day] = try int()
        }
        scan.newestEvent = try optionalDate()
        return scan
    }
}
