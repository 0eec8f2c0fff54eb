import Dispatch
import Portable
import Snapshots
import Stores

/// Reads and merges a store through the two caches kept in a cache folder: the merge memo (nothing
/// changed: nothing is read or merged) and the parse cache (unchanged records are not read again).
/// A first run over a store keeps the parse cache; a second that finds the store the same keeps the memo.
///
/// What it reports never depends on the caches: a cache that is missing, damaged or unwritable only
/// costs time. Saving is left to the caller's chosen moment (`Outcome.finish`), so that a command can
/// write its output first.
public struct CachedMerge: Sendable {
    public let store: any SnapshotStore
    /// Where the caches live; nil to read and merge afresh every time.
    public let cacheFolder: String?
    /// Caches written by another version are ignored: it may read records differently.
    public let readerVersion: String

    public init(store: any SnapshotStore, cacheFolder: String?, readerVersion: String) {
        self.store = store
        self.cacheFolder = cacheFolder
        self.readerVersion = readerVersion
    }

    /// A merge, and what is left to do once it has been used.
    public struct Outcome: Sendable {
        public var result: MergeResult
        /// Everything this run read and built that a short-lived process need not free.
        public var scratch: [any Sendable]
        /// Saves the caches (one is already being saved on another core); call once, when convenient.
        public var finish: @Sendable () -> Void
        /// What the result was taken from the merge memo under; nil when it was merged afresh. A result
        /// the memo gave once will be given again while the identity holds, so it is worth keeping in
        /// other forms (`status --json` keeps its rendered document).
        public var memoized: MergeIdentity?
    }

    /// The store's records as listed for one merge.
    public struct Listing: Sendable {
        /// Sorted by name.
        public var records: [RecordInfo]
        /// `RecordInfo.fingerprint(of:)`: nil when a record's version is unknown.
        public var fingerprint: UInt64?
        /// The folder's names to keep for the next listing; saved by `merge` beside its work, or by
        /// `keepNames(of:)`.
        var namesToKeep: ListingMemo?
    }

    /// Where the names of this store's last listing are kept; nil without a cache folder.
    private var namesPath: String? {
        cacheFolder.map { ListingMemo.path(in: $0, store: store.cacheName) }
    }

    /// Saves the names `listing` read for the next listing (when there are any): for a caller that
    /// answers without merging.
    public func keepNames(of listing: Listing) {
        if let memo = listing.namesToKeep, let namesPath { try? memo.save(to: namesPath, readerVersion: readerVersion) }
    }

    /// Lists the store for a merge with `history`.
    ///
    /// Records are examined only when there is something to compare their versions with: the parse
    /// cache of such merges (and the memo and kept documents that come after it). A first run reads
    /// every record anyway and learns each one's version from that read; its listing then has no
    /// fingerprint, which nothing made before it could match.
    /// - Throws: `SnapshotStoreError` when the store cannot be listed.
    ///
    /// - Parameter realNow: the real time, for judging whether the folder changed too recently for its
    ///   names to be kept (passed in, so that tests need not wait for time to pass).
    public func list(history: HistoryDetail = .skip, realNow: Date = Date()) throws -> Listing {
        // Reading the records (or examining them) comes next, on every core.
        Parallel.startWorkers()
        let examining =
            history != .full
            && cacheFolder.map { FileSystem.exists(ParseCache.path(in: $0, store: cacheName(history: history))) }
                ?? false
        guard let namesPath else {
            let records = try store.sortedListing(examining: examining)
            return Listing(records: records, fingerprint: RecordInfo.fingerprint(of: records))
        }
        // A folder whose entries stayed the same is not read again: its names come from the last listing.
        let (records, memo) = try ListingMemo.listing(
            of: store, memo: namesPath, readerVersion: readerVersion, now: realNow, examining: examining)
        return Listing(records: records, fingerprint: RecordInfo.fingerprint(of: records), namesToKeep: memo)
    }

    /// Leaves out records older than one this reader saw before from the same device (`NewestRecords`);
    /// without a cache folder, nothing is known to be newer.
    private func screenReplays(_ contents: inout StoreContents, realNow: Date) {
        guard let cacheFolder else { return }
        let path = NewestRecords.path(in: cacheFolder, store: store.cacheName)
        var newest = NewestRecords.load(from: path)
        if newest.screen(&contents, now: realNow) { newest.save(to: path) }
    }

    /// The name the caches of a merge with `history` are kept under: merges with trends keep files of
    /// their own (another name, another hash).
    func cacheName(history: HistoryDetail) -> String {
        history == .trend ? store.cacheName + " (with trends)" : store.cacheName
    }

    /// The identity a merge of `listing` with `options` has: nil when the listing has no fingerprint.
    public func identity(of listing: Listing, options: MergeOptions, history: HistoryDetail = .skip) -> MergeIdentity? {
        listing.fingerprint.map {
            MergeIdentity(
                store: cacheName(history: history), readerVersion: readerVersion, fingerprint: $0,
                staleAfter: options.staleAfter, maxSkew: options.maxSkew)
        }
    }

    /// Merges the store as it is now.
    ///
    /// - Parameters:
    ///   - options: the merge's options (`now` may be a chosen moment).
    ///   - realNow: the real time, for judging whether a record changed too recently to be cached.
    ///   - history: how much of the records' history to read. `.full` (for `report`): neither cache holds
    ///     it, so such a merge reads every record and leaves both caches alone. `.trend` (a table's
    ///     sparkline) keeps caches of its own, beside those of merges without history.
    /// - Throws: `SnapshotStoreError` when the store cannot be listed.
    public func merge(options: MergeOptions, realNow: Date, history: HistoryDetail = .skip) throws -> Outcome {
        try merge(list(history: history, realNow: realNow), options: options, realNow: realNow, history: history)
    }

    /// Merges the records of `listing` (from `list()`, just now).
    public func merge(
        _ listing: Listing, options: MergeOptions, realNow: Date, history: HistoryDetail = .skip
    ) throws -> Outcome {
        if history == .full {
            var noCache: ParseCache? = nil
            var contents = try store.readContents(
                listing: listing.records, cache: &noCache, now: realNow, history: .full)
            screenReplays(&contents, realNow: realNow)
            keepNames(of: listing)
            return Outcome(result: Merger.merge(contents, options: options), scratch: [contents], finish: {})
        }
        let name = cacheName(history: history)
        let memoPath = cacheFolder.map { MergeMemo.path(in: $0, store: name) }
        if let identity = identity(of: listing, options: options, history: history), let memoPath,
            let memo = MergeMemo.load(
                from: memoPath, store: name, readerVersion: readerVersion, fingerprint: identity.fingerprint),
            let result = memo.result(for: identity.fingerprint, options: options)
        {
            keepNames(of: listing)
            return Outcome(result: result, scratch: [memo], finish: {}, memoized: identity)
        }

        let cachePath = cacheFolder.map { ParseCache.path(in: $0, store: name) }
        var cache = cachePath.map { ParseCache.load(from: $0, store: name, readerVersion: readerVersion) }
        var contents = try store.readContents(
            listing: listing.records, cache: &cache, now: realNow, history: history)
        screenReplays(&contents, realNow: realNow)
        // The parse cache (and the folder's names) are final now: saved on another core while this one
        // merges.
        let savingCache = DispatchGroup()
        let changedCache = cache.flatMap { $0.hasChanged ? $0 : nil }
        if changedCache != nil || listing.namesToKeep != nil {
            let listed = listing
            DispatchQueue.global().async(group: savingCache) {
                if let changedCache, let cachePath { try? changedCache.save(to: cachePath) }
                keepNames(of: listed)
            }
        }
        let result = Merger.merge(contents, options: options)
        // A memo is worth writing only for a store that stays the same from run to run: this run must have
        // found every record as the last one left it (the parse cache unchanged). A store that changes
        // every run (a team's, each machine publishing every minute) never pays for one, and a first run
        // leaves it to the second. A record changed moments ago may change again within its time stamp's
        // tick: no memo then either.
        // A read that failed for a passing reason (a cut body, a timeout) is not kept in the parse cache,
        // and must not be kept in a memo either.
        let unchanged = (cache.map { !$0.hasChanged } ?? false) && contents.isFinal
        let settled = listing.records.allSatisfy { info in
            info.modified.map { realNow.timeIntervalSince($0) >= ParseCache.settleTime } ?? false
        }
        let memo: MergeMemo? =
            if let fingerprint = listing.fingerprint, unchanged, settled {
                MergeMemo(
                    store: name, readerVersion: readerVersion, fingerprint: fingerprint, options: options,
                    result: result)
            } else {
                nil
            }
        return Outcome(
            result: result, scratch: [contents, cache],
            finish: {
                if let memo, let memoPath { try? memo.save(to: memoPath) }
                savingCache.wait()
            }, memoized: nil)
    }
}
