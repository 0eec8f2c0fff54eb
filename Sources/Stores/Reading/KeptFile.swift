import Serialization
import Snapshots

/// Every kind of file aggctl keeps about a store on the reader's machine, and the one place their names
/// are made: `store-<hash of the store's name>.<kind>`, the hash stable across runs and machines, so that
/// no store's name (which may hold a user or a host) appears in a file name.
///
/// Each is a cache or a memory, never the only copy of anything: a kept file that is missing, damaged or
/// written by another aggctl version is ignored (or set aside) and made again. docs/architecture.md lists
/// each with its owner and what losing it costs.
public enum KeptFile: String, CaseIterable, Sendable {
    /// Each record's decoded outcome under its version (`ParseCache`, in the cache folder).
    case parseCache = "cache"
    /// A merge of records that did not change (the merge memo, in the cache folder).
    case mergeMemo = "merge"
    /// `status --json`'s document of an unchanged store, its moments marked (in the cache folder).
    case statusDocument = "status"
    /// The names a folder store's last listing had while its entries stay the same (`ListingMemo`).
    case folderNames = "names"
    /// The names a server store's last listing had, to tell a record mid-replace from one removed.
    case listedNames = "listed"
    /// The fingerprint of the last listing read with full history: a merge of such a read is kept only
    /// once the next read finds the same records (`StoreReader`).
    case historyListing = "seen"
    /// The newest record seen of each device, to turn away a replayed older one (`NewestRecords`).
    case newestRecords = "newest"
    /// What this machine last published to the store, to notice a clone publishing as it.
    case publishedRecord = "published"
    /// When `publish` last swept the store's stale temporary files.
    case sweptStamp = "swept"
    /// What stood for the ledger rows this machine last published to the store whole: a publish that
    /// would publish the same rows again reads and writes no month.
    case publishedLedger = "ledger"
    /// The ledger months this machine last wrote to the store, so that a publish lays its rows over them
    /// without reading them back (`LedgerPublisher`).
    case publishedMonths = "ledger-months"
    /// Ledger months read before, by device, month and version (`LedgerMonthCache`, in the cache folder).
    case ledgerMonths = "months"
    /// The merged weekly history, kept 8 weeks for forecasts (in the state folder's `archive`).
    case weeklyArchive = "weekly"

    /// This kind of file about `store` (its display or cache name, never credentials) inside `folder`.
    public func path(in folder: String, store: String) -> String {
        // FNV-1a: stable across runs and machines, unlike Swift's seeded Hasher.
        let hex = String(BinaryWriter.fnv1a(store.utf8), radix: 16)
        return folder + "/store-" + String(repeating: "0", count: 16 - hex.count) + hex + "." + rawValue
    }
}
