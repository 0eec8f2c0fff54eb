import Portable
import Snapshots

/// What a kind of store can do, declared once by the store rather than as loose protocol knobs: readers,
/// publish and the conformance suite ask it instead of asking which kind of store they hold.
public struct StoreTraits: Sendable, Equatable {
    /// How many records to read at once: the cores for a folder, more for a server (hiding round trips).
    public var readParallelism: Int

    /// How many times a record that was torn (did not decode) or briefly missing is read again before it
    /// counts as a problem. Zero where a replacement is atomic for readers (a folder's rename, S3's PUT);
    /// a WebDAV server may serve a record while it is being replaced (Apache reads a file's size, then
    /// opens the path, so a rename in between sends a truncated body; its MOVE removes the old record
    /// before renaming the new one). A timeout, a refusal or a size limit is never read again: it would
    /// cost the same again.
    public var rereadsOfFailedRecords: Int

    /// Whether one write replaces a record atomically by itself (an S3 PUT), so nothing is staged under a
    /// temporary name and nothing can be left behind; otherwise the store is a `StagingStore`.
    public var writesAtomicallyInPlace: Bool

    /// Whether the first write creates the store's own folder or collection when it is missing (a folder,
    /// WebDAV). An S3 prefix needs no creating, and a bucket is never made: there, a store with no records
    /// is simply empty, and only a missing bucket is an error.
    public var firstWriteCreatesStore: Bool

    /// Whether sweeping leftover temporary files costs no more than reading a folder, so that publish may
    /// sweep every time; a server's sweep lists the whole store, so publish sweeps it hourly.
    public var sweepsCheaply: Bool

    public init(
        readParallelism: Int = Parallel.cores, rereadsOfFailedRecords: Int = 0,
        writesAtomicallyInPlace: Bool = false, firstWriteCreatesStore: Bool = true, sweepsCheaply: Bool = true
    ) {
        self.readParallelism = readParallelism
        self.rereadsOfFailedRecords = rereadsOfFailedRecords
        self.writesAtomicallyInPlace = writesAtomicallyInPlace
        self.firstWriteCreatesStore = firstWriteCreatesStore
        self.sweepsCheaply = sweepsCheaply
    }
}
