import Portable
import Serialization
import Snapshots

/// The cache's file format: magic, format number, reader version, store, then the entries in
/// `chunkCount` chunks (each its byte length, its entry count and its entries), then a checksum of
/// everything before it. An entry's chunk follows from its name alone, so a record that changes changes
/// one chunk: the others are written back as they were read, and loading decodes them on every core.
/// Dates are stored as their exact `Double`, so a cached record equals the parsed one bit for bit.
extension ParseCache {
    static let magic: [UInt8] = Array("AGGCACHE".utf8)
    /// 4: entries in chunks. 5: records as their schema keeps them (`SchemaObject.keep`).
    static let format: UInt32 = 5
    static let chunkCount = 16

    /// The chunk an entry of this name is kept in: FNV-1a, stable across runs and machines.
    static func chunk(of name: String) -> Int {
        Int(BinaryWriter.fnv1a(name.utf8) % UInt64(chunkCount))
    }

    func encode() -> Data {
        var chunks = [[(name: String, entry: Entry)]](repeating: [], count: ParseCache.chunkCount)
        for (name, entry) in entries {
            let chunk = ParseCache.chunk(of: name)
            if intactChunks.indices.contains(chunk), intactChunks[chunk] != nil { continue }
            chunks[chunk].append((name, entry))
        }
        // Room for every entry at once: a record with history and limits keeps 1 to 2 KB here, and growing
        // the buffer copies what is written (pages reserved and never written cost nothing).
        var out = BinaryWriter(capacity: 4096 + entries.count * 4096)
        out.header(magic: ParseCache.magic, format: ParseCache.format, readerVersion: readerVersion)
        out.string(store)
        out.u32(UInt32(ParseCache.chunkCount))
        for chunk in 0..<ParseCache.chunkCount {
            if let loaded, intactChunks.indices.contains(chunk), let range = intactChunks[chunk] {
                // Length and count as they were, then the entries: copied, not encoded again.
                loaded.withUnsafeBytes { out.raw(UnsafeRawBufferPointer(rebasing: $0[range])) }
                continue
            }
            // The length once the entries are written, in its place before them.
            let lengthAt = out.count
            out.u64(0)
            out.u32(UInt32(chunks[chunk].count))
            let entriesAt = out.count
            for (name, entry) in chunks[chunk] { out.entry(name, entry) }
            out.setU64(UInt64(out.count - entriesAt), at: lengthAt)
        }
        return out.sealed()
    }

    static func decode(_ data: Data, store: String, readerVersion: String) throws -> ParseCache {
        try data.withUnsafeBytes { bytes in
            // The chunk table first; then the chunks and the checksum side by side on every core. Nothing
            // read is used unless the checksum agrees.
            var table: [(start: Int, content: UnsafeRawBufferPointer, count: Int)] = []
            try BinaryReader.readBeforeChecking(bytes, magic: magic, format: format, readerVersion: readerVersion) {
                input in
                guard try input.string() == store, try input.u32() == UInt32(chunkCount) else {
                    throw BinaryReader.Corrupt()
                }
                for _ in 0..<chunkCount {
                    let start = input.position
                    let length = Int(clamping: try input.u64())
                    let count = Int(try input.u32())
                    table.append((start, try input.take(length), count))
                }
            }
            nonisolated(unsafe) let shared = table
            nonisolated(unsafe) let whole = bytes
            // Job 0 is the checksum; job 1 + c decodes chunk c.
            let outcomes = Parallel.mapRanges(chunkCount + 1, minimumPerWorker: 1) {
                jobs -> [Result<[(String, Entry)], BinaryReader.Corrupt>] in
                jobs.map { job in
                    if job == 0 {
                        return BinaryReader.hasIntactChecksum(whole) ? .success([]) : .failure(BinaryReader.Corrupt())
                    }
                    let chunk = job - 1
                    var reader = BinaryReader(shared[chunk].content)
                    var entries: [(String, Entry)] = []
                    entries.reserveCapacity(min(shared[chunk].count, 1 << 16))
                    do {
                        for _ in 0..<shared[chunk].count {
                            let (name, entry) = try reader.entry()
                            // In the chunk its name belongs to, or a later save would keep it twice.
                            guard ParseCache.chunk(of: name) == chunk else { throw BinaryReader.Corrupt() }
                            entries.append((name, entry))
                        }
                        guard reader.isAtEnd else { throw BinaryReader.Corrupt() }
                    } catch {
                        return .failure(BinaryReader.Corrupt())
                    }
                    return .success(entries)
                }
            }
            var cache = ParseCache(store: store, readerVersion: readerVersion)
            cache.entries.reserveCapacity(min(table.reduce(0) { $0 + $1.count }, 1 << 20))
            for outcome in outcomes.joined() {
                for (name, entry) in try outcome.get() {
                    guard cache.entries.updateValue(entry, forKey: name) == nil else { throw BinaryReader.Corrupt() }
                }
            }
            cache.loaded = data
            // Each chunk with its length and count: 12 bytes before its entries.
            cache.intactChunks = table.map { $0.start..<($0.start + 12 + $0.content.count) }
            return cache
        }
    }
}

extension BinaryWriter {
    fileprivate mutating func entry(_ name: String, _ entry: ParseCache.Entry) {
        string(name)
        version(entry.version)
        switch entry.outcome {
        case .success(let record):
            u8(0)
            snapshot(record.snapshot)
            u32(UInt32(record.notes.count))
            for note in record.notes { string(note) }
        case .failure(let problem):
            u8(1)
            string(problem.reason)
        }
    }
}

extension BinaryReader {
    fileprivate mutating func entry() throws -> (String, ParseCache.Entry) {
        let name = try string()
        let version = try version()
        switch try u8() {
        case 0:
            let snapshot = try snapshot()
            let notes = try (0..<(try count())).map { _ in try string() }
            return (
                name,
                ParseCache.Entry(version: version, outcome: .success(DecodedRecord(snapshot: snapshot, notes: notes)))
            )
        case 1:
            return (
                name,
                ParseCache.Entry(version: version, outcome: .failure(RecordProblem(file: name, reason: try string())))
            )
        default:
            throw Corrupt()
        }
    }
}

/// A record's version in the cache's binary form.
extension BinaryWriter {
    public mutating func version(_ version: RecordVersion) {
        switch version {
        case .file(let size, let modified, let changed, let inode):
            u8(0)
            u64(UInt64(bitPattern: size))
            u64(UInt64(bitPattern: modified))
            u64(UInt64(bitPattern: changed))
            u64(inode)
        case .tag(let tag):
            u8(1)
            string(tag)
        }
    }
}

extension BinaryReader {
    public mutating func version() throws -> RecordVersion {
        switch try u8() {
        case 0:
            return .file(
                size: Int64(bitPattern: try u64()), modified: Int64(bitPattern: try u64()),
                changed: Int64(bitPattern: try u64()), inode: try u64())
        case 1:
            return .tag(try string())
        default:
            throw Corrupt()
        }
    }
}
