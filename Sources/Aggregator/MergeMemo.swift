import Portable
import Serialization
import Snapshots

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A merge kept from an earlier run, reused while the store's records are exactly the same.
///
/// `check` and `watch` run every minute over stores that rarely change. When every record's name and
/// version match the listing the memo was made from, the records are the same, so the merge is too:
/// only what depends on the moment (staleness, `now`) is judged again (`MergeResult.reevaluated`), and
/// nothing is read, parsed or merged. Kept beside the parse cache, in the same guarded binary form: a
/// memo that is damaged, foreign or from another aggctl version is ignored.
public struct MergeMemo: Sendable {
    public let store: String
    public let readerVersion: String
    /// Identifies the listing the merge was made from (the read layer's fingerprint of it).
    public let fingerprint: UInt64
    /// The options the merge was made with.
    public let options: MergeOptions
    public let result: MergeResult

    public init(store: String, readerVersion: String, fingerprint: UInt64, options: MergeOptions, result: MergeResult) {
        self.store = store
        self.readerVersion = readerVersion
        self.fingerprint = fingerprint
        self.options = options
        self.result = result
    }

    /// The merge of the same records judged with `options`, or nil when this memo cannot stand for it
    /// (another listing, or clock skew in play).
    public func result(for fingerprint: UInt64, options: MergeOptions) -> MergeResult? {
        guard fingerprint == self.fingerprint else { return nil }
        return result.reevaluated(options, mergedWith: self.options)
    }

    /// Reads the memo at `path`; nil when it is missing, damaged or foreign, or (given `fingerprint`) made
    /// from another listing.
    ///
    /// A memo of another listing is turned away on its first bytes, before the rest is read, its
    /// checksum checked or anything decoded: on a store that changes between runs (a team's), every run
    /// finds the memo of an older state (5 MB at 10000 records), and reading and decoding it whole was a
    /// tenth of the run.
    public static func load(
        from path: String, store: String, readerVersion: String, fingerprint: UInt64? = nil
    ) -> MergeMemo? {
        // The listing a memo was made from, by its first bytes; nil when they do not tell (unchecked: it
        // may only turn a memo away).
        func madeFrom(_ bytes: UnsafeRawBufferPointer) -> UInt64? {
            try? BinaryReader.peek(bytes, magic: magic, format: format, readerVersion: readerVersion) { input in
                guard try input.string() == store else { throw BinaryReader.Corrupt() }
                return try input.u64()
            }
        }
        let data: Data?
        if let fingerprint {
            data = FileSystem.contents(of: path, unless: { madeFrom($0).map { $0 != fingerprint } ?? false })
            guard let data, data.withUnsafeBytes(madeFrom) == fingerprint else { return nil }
        } else {
            data = FileSystem.contents(of: path)
        }
        return data.flatMap { try? decode($0, store: store, readerVersion: readerVersion) }
    }

    /// Writes the memo atomically (temporary file, rename), creating its folder. Not flushed: a torn
    /// memo fails its checksum and the next run merges afresh.
    public func save(to path: String) throws {
        try AtomicFile.writePrivate(encode(), to: path)
    }
}
