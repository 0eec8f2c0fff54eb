import Portable
import Snapshots
import Stores

extension RunContext {
    /// The ledger's `months` of every device in `store`, months read before taken from this machine's
    /// cache when their files kept their versions (cached apart for each set of keys: `cacheName`).
    func readLedger(_ store: any RecordStore, months: [String]) throws -> (ledgers: [Ledger], problems: [RecordProblem])
    {
        try? FileManager.default.createDirectory(atPath: cacheFolder, withIntermediateDirectories: true)
        return try LedgerReading.read(
            store, months: months, cacheFile: KeptFile.ledgerMonths.path(in: cacheFolder, store: store.cacheName),
            readerVersion: "aggctl \(Aggctl.version)")
    }
}
