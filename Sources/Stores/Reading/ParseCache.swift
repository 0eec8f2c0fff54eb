import Portable
import Snapshots

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What earlier runs learned from a store's records, so that a record whose file is unchanged is not
/// read and parsed again (`check` and `watch` run every minute over stores that rarely change).
///
/// Keyed by file name and the store's opaque `RecordInfo.version` (size, times and inode for a folder;
/// the ETag for WebDAV). Holds each record as the merge reads it (without history) or its rejection.
/// The file is a private binary format with a checksum: a cache that is missing, corrupt, truncated,
/// written by another aggctl version or for another store is ignored and rebuilt, never trusted.
public struct ParseCache: Sendable {
    /// The store this cache describes (its display name, never credentials).
    public let store: String
    /// Writers tag the cache with their version: another version may read records differently.
    public let readerVersion: String
    var entries: [String: Entry] = [:]
    /// Whether entries were added, changed or dropped since loading: only then is it worth saving.
    public private(set) var hasChanged = false
    /// The file the cache was loaded from, and where in it each chunk of entries lies while none of the
    /// chunk's entries changed (nil for a chunk that did): saving writes such a chunk back as it was.
    /// A store where one machine published since the last run changes one chunk.
    var loaded: Data?
    var intactChunks: [Range<Int>?] = []

    /// A record younger than this (by its modification time) is not cached: on file systems with coarse
    /// time stamps a rewrite in the same tick could keep size and time ("racily clean", as git calls it).
    public static let settleTime: TimeInterval = 2

    struct Entry: Sendable {
        var version: RecordVersion
        var outcome: Result<DecodedRecord, RecordProblem>
    }

    public init(store: String, readerVersion: String) {
        self.store = store
        self.readerVersion = readerVersion
    }

    public var count: Int { entries.count }

    /// The record names of the listing the cache was last updated with.
    public var knownNames: Set<String> { Set(entries.keys) }

    /// The cached outcome for a listed record, when its version is unchanged.
    func outcome(for info: RecordInfo) -> Result<DecodedRecord, RecordProblem>? {
        guard let version = info.version, let entry = entries[info.name], entry.version == version else { return nil }
        return entry.outcome
    }

    /// Replaces the entries with the outcomes of the current listing; records without a version or
    /// changed too recently to trust are left out.
    ///
    /// - Parameter read: the indices of the records read this run. Every other one came from this cache
    ///   as it stands (`outcome(for:)` found its entry under its version), so its entry is kept without
    ///   being looked up again: on a store where one record changed, those lookups were most of the work.
    mutating func update(
        _ listing: [RecordInfo], _ outcomes: [Result<DecodedRecord, RecordProblem>], read: [Int], now: Date
    ) {
        // In place: on a store where one record changed, rebuilding the table (a thousand insertions and
        // as many lookups to compare) cost more than the record's reading.
        var listedAndKept = listing.count - read.count
        // A first run's cache has nothing to look up (hashing each name for it was the loop's cost).
        let wasEmpty = entries.isEmpty
        for index in read {
            let info = listing[index]
            let settled = info.modified.map { now.timeIntervalSince($0) >= ParseCache.settleTime } ?? true
            guard let version = info.version, settled else {
                if !wasEmpty, entries.removeValue(forKey: info.name) != nil { changed(info.name) }
                continue
            }
            listedAndKept += 1
            if !wasEmpty, entries[info.name]?.version == version { continue }
            entries[info.name] = Entry(version: version, outcome: outcomes[index])
            changed(info.name)
        }
        // Entries of records no longer listed (counted apart: a listing never names a record twice).
        if entries.count != listedAndKept {
            let listed = Set(listing.map(\.name))
            for name in entries.keys.filter({ !listed.contains($0) }) {
                entries.removeValue(forKey: name)
                changed(name)
            }
        }
    }

    /// A chunk holding an entry that is new, changed or gone is encoded again when saved.
    private mutating func changed(_ name: String) {
        hasChanged = true
        markChanged(chunkOf: name)
    }

    private mutating func markChanged(chunkOf name: String) {
        let chunk = ParseCache.chunk(of: name)
        if chunk < intactChunks.count { intactChunks[chunk] = nil }
    }

    // MARK: Files

    /// Reads the cache at `path`; an empty cache when it is missing, unreadable, corrupt or foreign.
    public static func load(from path: String, store: String, readerVersion: String) -> ParseCache {
        let empty = ParseCache(store: store, readerVersion: readerVersion)
        guard let data = FileSystem.contents(of: path) else { return empty }
        return (try? decode(data, store: store, readerVersion: readerVersion)) ?? empty
    }

    /// Writes the cache atomically (temporary file, rename), creating its folder.
    ///
    /// Not flushed to disk: a cache lost or torn by a power cut fails its checksum and is rebuilt, and
    /// the flush cost a third of a cold `status`.
    public func save(to path: String) throws {
        try AtomicFile.writePrivate(encode(), to: path)
    }
}
