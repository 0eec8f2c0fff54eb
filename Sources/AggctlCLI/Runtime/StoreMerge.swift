import Aggregator
import Dispatch
import Portable
import Snapshots
import Stores

/// The question every reading command asks: the store merged as of a moment. The read layer
/// (`StoreReader`) lists and reads; this adds the one kept answer above it, the merge memo: while the
/// store is exactly as the last read found it, nothing is read or merged, and only what depends on the
/// moment (staleness, `now`) is judged again (`MergeResult.reevaluated`).
struct StoreMerge: Sendable {
    let reader: StoreReader

    init(store: any RecordStore, cacheFolder: String?, readerVersion: String) {
        reader = StoreReader(store: store, cacheFolder: cacheFolder, readerVersion: readerVersion)
    }

    var readerVersion: String { reader.readerVersion }

    /// A merge, and what is left to do once it has been used.
    struct Outcome: Sendable {
        var result: MergeResult
        /// Everything this run read and built that a short-lived process need not free.
        var scratch: [any Sendable]
        /// Saves the caches (one is already being saved on another core); call once, when convenient.
        var finish: @Sendable () -> Void
        /// What the result was taken from the merge memo under; nil when it was merged afresh. A result
        /// the memo gave once will be given again while the identity holds, so it is worth keeping in
        /// other forms (`status --json` keeps its rendered document).
        var memoized: MergeIdentity?
    }

    /// Lists the store for a merge with `history` (`StoreReader.list`).
    /// - Throws: `CommandFailure` when the store cannot be listed: the reading command fails with its line.
    func list(history: HistoryDetail = .skip, realNow: Date = Date()) throws -> StoreReader.Listing {
        do {
            return try reader.list(history: history, realNow: realNow)
        } catch let error as StoreError {
            throw CommandFailure(error.description)
        }
    }

    func keepNames(of listing: StoreReader.Listing) { reader.keepNames(of: listing) }

    /// The identity a merge of `listing` with `options` has: nil when the listing has no fingerprint.
    func identity(
        of listing: StoreReader.Listing, options: MergeOptions, history: HistoryDetail = .skip
    ) -> MergeIdentity? {
        listing.fingerprint.map {
            MergeIdentity(
                store: reader.cacheName(history: history), readerVersion: readerVersion, fingerprint: $0,
                staleAfter: options.staleAfter, maxSkew: options.maxSkew)
        }
    }

    /// Merges the store as it is now (`options.now` may be a chosen moment; `realNow` is the clock's).
    /// - Throws: `CommandFailure` when the store cannot be listed.
    func merge(options: MergeOptions, realNow: Date, history: HistoryDetail = .skip) throws -> Outcome {
        try merge(list(history: history, realNow: realNow), options: options, realNow: realNow, history: history)
    }

    /// Merges the records of `listing` (from `list()`, just now).
    func merge(
        _ listing: StoreReader.Listing, options: MergeOptions, realNow: Date, history: HistoryDetail = .skip
    ) -> Outcome {
        let memoPath = reader.keptFile(.mergeMemo, history: history)
        let identity = identity(of: listing, options: options, history: history)
        if let identity, let memoPath,
            let memo = MergeMemo.load(
                from: memoPath, store: identity.store, readerVersion: readerVersion, fingerprint: identity.fingerprint),
            let result = memo.result(for: identity.fingerprint, options: options)
        {
            keepNames(of: listing)
            return Outcome(result: result, scratch: [memo], finish: {}, memoized: identity)
        }
        let read = reader.read(listing, realNow: realNow, history: history)
        let result = Merger.merge(read.contents, options: options)
        let memo: MergeMemo? =
            if let identity, read.isUnchanged {
                MergeMemo(
                    store: identity.store, readerVersion: readerVersion, fingerprint: identity.fingerprint,
                    options: options, result: result)
            } else {
                nil
            }
        return Outcome(
            result: result, scratch: read.scratch,
            finish: {
                if let memo, let memoPath { try? memo.save(to: memoPath) }
                read.finish()
            }, memoized: nil)
    }
}

extension RunContext {
    /// The store of `settings` as this run reads it: its kept files in the cache folder.
    func storeMerge(_ settings: MergeSettings) throws -> StoreMerge {
        StoreMerge(
            store: try openStore(settings.location), cacheFolder: cacheFolder, readerVersion: "aggctl \(Aggctl.version)"
        )
    }

    /// The store merged as of this run's moment: the one question `status`, `devices`, `check`, `report`,
    /// `serve`, `export` and `statusline` ask.
    ///
    /// - Returns: the merge, and a function that saves the caches (call it once the output is written).
    /// - Parameter history: how much history to read: `.full` for `report` (past the caches), `.trend`
    ///   for the table's sparkline.
    func merged(
        _ settings: MergeSettings, history: HistoryDetail = .skip
    ) throws -> (MergeResult, saveCache: @Sendable () -> Void) {
        let options = settings.options(clock: clock)
        let merging = try storeMerge(settings)
        let outcome = try merging.merge(options: options, realNow: Date(), history: history)
        // Freeing a large merge just before the process ends is wasted time.
        keepUntilExit(outcome.result)
        keepUntilExit(outcome.scratch)
        return (outcome.result, outcome.finish)
    }
}
