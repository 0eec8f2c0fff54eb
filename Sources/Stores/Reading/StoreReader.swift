import Dispatch
import Portable
import Snapshots

/// The one read layer above a store: it lists, reads on every core, opens sealed envelopes (through the
/// store it is given), decodes, and owns every cache of a read: the folder's names (`ListingMemo`), the
/// parse cache, and the newest record seen of each device (`NewestRecords`). It also says whether the
/// store is exactly as the last read left it, which is when anything made from the records (a merge, a
/// document) may be kept under the listing's fingerprint (`Read.isUnchanged`).
///
/// What it reads never depends on the caches: a cache that is missing, damaged or unwritable only costs
/// time. Saving is left to the caller's chosen moment (`Read.finish`), so that a command can write its
/// output first.
public struct StoreReader: Sendable {
    public let store: any RecordStore
    /// Where the caches live; nil to read afresh every time.
    public let cacheFolder: String?
    /// Caches written by another version are ignored: it may read records differently.
    public let readerVersion: String

    public init(store: any RecordStore, cacheFolder: String?, readerVersion: String) {
        self.store = store
        self.cacheFolder = cacheFolder
        self.readerVersion = readerVersion
    }

    /// The store's records as listed for one read.
    public struct Listing: Sendable {
        /// Sorted by name.
        public var records: [RecordInfo]
        /// `RecordInfo.fingerprint(of:)`: nil when a record's version is unknown.
        public var fingerprint: UInt64?
        /// The folder's names to keep for the next listing; saved by `read` beside its work, or by
        /// `keepNames(of:)`.
        var namesToKeep: ListingMemo?
    }

    /// What one read found, and what is left to do once it has been used.
    public struct Read: Sendable {
        public var contents: StoreContents
        /// Whether every record was found as the last read left it, settled, and judged as listed: what is
        /// made from these contents may be kept under the listing's fingerprint. A store that changes every
        /// run (a team's, each machine publishing every minute) never pays for keeping, a first read leaves
        /// it to the second, and a read that failed for a passing reason (a cut body, a timeout) is not kept.
        public var isUnchanged: Bool
        /// Everything this read built that a short-lived process need not free.
        public var scratch: [any Sendable]
        /// Waits for the caches being saved on another core; call once, when convenient.
        public var finish: @Sendable () -> Void
    }

    /// The name this store's kept files go by for a read with `history`: reads with trends keep files of
    /// their own (another name, another hash).
    public func cacheName(history: HistoryDetail = .skip) -> String {
        switch history {
        case .skip: store.cacheName
        case .trend: store.cacheName + " (with trends)"
        case .full: store.cacheName + " (with history)"
        }
    }

    /// The kept file of `kind` for reads with `history`; nil without a cache folder.
    public func keptFile(_ kind: KeptFile, history: HistoryDetail = .skip) -> String? {
        cacheFolder.map { kind.path(in: $0, store: cacheName(history: history)) }
    }

    /// Saves the names `listing` read for the next listing (when there are any): for a caller that
    /// answers without reading.
    public func keepNames(of listing: Listing) {
        if let memo = listing.namesToKeep, let path = keptFile(.folderNames) {
            try? memo.save(to: path, readerVersion: readerVersion)
        }
    }

    /// Lists the store for a read with `history`.
    ///
    /// Records are examined only when there is something to compare their versions with: the parse
    /// cache of such reads (and what is kept after it). A first run reads every record anyway and learns
    /// each one's version from that read; its listing then has no fingerprint, which nothing kept before
    /// it could match.
    /// - Throws: `StoreError` when the store cannot be listed.
    /// - Parameter realNow: the real time, for judging whether the folder changed too recently for its
    ///   names to be kept (passed in, so that tests need not wait for time to pass).
    public func list(history: HistoryDetail = .skip, realNow: Date = Date()) throws -> Listing {
        // Reading the records (or examining them) comes next, on every core.
        Parallel.startWorkers()
        // Versions are worth a look at each record when a cache will compare them: the parse cache's, or
        // (with full history, where reading every record costs far more than looking at it) the merge's.
        let examining =
            history == .full || (keptFile(.parseCache, history: history).map(FileSystem.exists) ?? false)
        guard let namesPath = keptFile(.folderNames) else {
            let records = try store.sortedListing(examining: examining)
            return Listing(records: records, fingerprint: RecordInfo.fingerprint(of: records))
        }
        // A folder whose entries stayed the same is not read again: its names come from the last listing.
        let (records, memo) = try ListingMemo.listing(
            of: store, memo: namesPath, readerVersion: readerVersion, now: realNow, examining: examining)
        return Listing(records: records, fingerprint: RecordInfo.fingerprint(of: records), namesToKeep: memo)
    }

    /// Reads the records of `listing` (from `list()`, just now).
    ///
    /// - Parameters:
    ///   - realNow: the real time, for judging whether a record changed too recently to be cached.
    ///   - history: how much of the records' history to read. `.full` (for `report`): the parse cache does
    ///     not hold it, so such a read reads every record and leaves the cache alone; it is unchanged when
    ///     the last such read listed the same records (`HistoryListing`). `.trend` (a table's
    ///     sparkline) keeps a cache of its own.
    public func read(_ listing: Listing, realNow: Date, history: HistoryDetail = .skip) -> Read {
        if history == .full {
            var noCache: ParseCache? = nil
            var contents = store.readContents(listing: listing.records, cache: &noCache, now: realNow, history: .full)
            screenReplays(&contents, realNow: realNow)
            keepNames(of: listing)
            // No parse cache tells whether these records are the last read's: the listing's fingerprint
            // kept from that read does.
            var sameAsLast = false
            if let fingerprint = listing.fingerprint, let path = keptFile(.historyListing, history: .full) {
                sameAsLast = HistoryListing.load(from: path, readerVersion: readerVersion) == fingerprint
                if !sameAsLast { HistoryListing.save(fingerprint, to: path, readerVersion: readerVersion) }
            }
            let unchanged = sameAsLast && contents.isFinal && isSettled(listing, realNow: realNow)
            return Read(contents: contents, isUnchanged: unchanged, scratch: [contents], finish: {})
        }
        let cachePath = keptFile(.parseCache, history: history)
        var cache = cachePath.map {
            ParseCache.load(from: $0, store: cacheName(history: history), readerVersion: readerVersion)
        }
        var contents = store.readContents(listing: listing.records, cache: &cache, now: realNow, history: history)
        screenReplays(&contents, realNow: realNow)
        // The parse cache (and the folder's names) are final now: saved on another core while the caller
        // goes on.
        let saving = DispatchGroup()
        let changedCache = cache.flatMap { $0.hasChanged ? $0 : nil }
        if changedCache != nil || listing.namesToKeep != nil {
            DispatchQueue.global().async(group: saving) {
                if let changedCache, let cachePath { try? changedCache.save(to: cachePath) }
                keepNames(of: listing)
            }
        }
        let unchanged =
            listing.fingerprint != nil && (cache.map { !$0.hasChanged } ?? false) && contents.isFinal
            && isSettled(listing, realNow: realNow)
        return Read(contents: contents, isUnchanged: unchanged, scratch: [contents, cache], finish: { saving.wait() })
    }

    /// Whether no record of `listing` changed moments ago: such a record may change again within its
    /// time stamp's tick, so its version does not yet stand for its bytes.
    private func isSettled(_ listing: Listing, realNow: Date) -> Bool {
        listing.records.allSatisfy { info in
            info.modified.map { realNow.timeIntervalSince($0) >= ParseCache.settleTime } ?? false
        }
    }

    /// Leaves out records older than one this reader saw before from the same device (`NewestRecords`);
    /// without a cache folder, nothing is known to be newer.
    private func screenReplays(_ contents: inout StoreContents, realNow: Date) {
        guard let path = keptFile(.newestRecords) else { return }
        var newest = NewestRecords.load(from: path)
        if newest.screen(&contents, now: realNow) { newest.save(to: path) }
    }
}
