import Collectors
import Portable
import Pricing
import Snapshots
import Stores

/// Keeps this machine's ledger in the store (docs/format.md, "The ledger"): one file per UTC month under
/// `ledger/<deviceID>/`, each the store's rows with this run's laid over them (`Ledger.merged`), written
/// only when that changes a row, atomically, sealed when the store is.
struct LedgerPublisher {
    let store: any RecordStore
    let deviceID: DeviceID
    /// Where the months this machine last wrote are kept (nil: each month is read from the store). Trusted
    /// a day, as the store's copy is this machine's alone to write; older, the store's month is read.
    var kept: String?
    var readerVersion = "aggctl \(Aggctl.version)"

    static let folder = DeviceID(alreadyValidated: "ledger")

    /// This device's folder of months, or nil where the store has no folders.
    var months: (any RecordStore)? { store.nested(Self.folder)?.nested(deviceID) }

    /// Publishes `rows`; returns the months written. A month the store holds but that cannot be read is
    /// not written over (its hours would be lost): that is a failure, as is a write that failed.
    func publish(_ rows: [LedgerRow], now: Date, pricesAsOf: String?) throws -> [String] {
        guard !rows.isEmpty, let months else { return [] }
        var written: [String] = []
        var failures: [String] = []
        let keptAt = kept.flatMap {
            (try? FileManager.default.attributesOfItem(atPath: $0)[.modificationDate]) as? Date
        }
        var copies =
            kept.flatMap { path in
                keptAt.map { Date().timeIntervalSince($0) < 86_400 } == true
                    ? LedgerMonthCache.load(from: path, readerVersion: readerVersion) : nil
            } ?? LedgerMonthCache()
        var copiesChanged = false
        for (month, computed) in Self.byMonth(rows) {
            let file = month + ".json"
            let key = LedgerMonthCache.Key(device: deviceID, month: month)
            var published = copies.entries[key]?.ledger
            if published == nil {
                do {
                    published = try read(file, month: month, from: months)
                } catch {
                    failures.append("ledger month '\(file)' was not written: \(error)")
                    continue
                }
                if let published {
                    copies.entries[key] = LedgerMonthCache.Entry(version: .tag("published"), ledger: published)
                    copiesChanged = true
                }
            }
            let merged = Ledger.merged(published: published?.rows ?? [], computed: computed)
            guard merged != published?.rows || published?.pricesAsOf != pricesAsOf else { continue }
            let ledger = Ledger(
                deviceID: deviceID, month: month, generatedAt: now, pricesAsOf: pricesAsOf, rows: merged)
            do {
                let bytes = try LedgerCodec.encode(ledger)
                // A month readers would refuse is not written: the store keeps the last one they can read.
                guard bytes.count <= LedgerCodec.maximumSize else {
                    failures.append(
                        "ledger month '\(file)' is \(bytes.count) bytes, over the \(LedgerCodec.maximumSize) readers "
                            + "take (\(merged.count) rows); not written")
                    continue
                }
                try months.writeRecord(bytes, for: DeviceID(alreadyValidated: month))
                written.append(month)
                copies.entries[key] = LedgerMonthCache.Entry(version: .tag("published"), ledger: ledger)
                copiesChanged = true
            } catch {
                // What the store holds now is not known: read it again next time.
                copies.entries[key] = nil
                copiesChanged = true
                failures.append("ledger month '\(file)': \(error)")
            }
        }
        if let kept, copiesChanged {
            // The months a publish writes are this one and the last; older copies go.
            let oldest = Ledger.month(of: now.addingTimeInterval(-62 * 86_400))
            copies.entries = copies.entries.filter { $0.key.month >= oldest }
            copies.save(to: kept, readerVersion: readerVersion)
        }
        if let first = failures.first { throw CommandFailure(first) }
        return written
    }

    /// `rows` by UTC month, months in order; a month's name made once a day of rows, not once a row.
    static func byMonth(_ rows: [LedgerRow]) -> [(month: String, rows: [LedgerRow])] {
        var months: [String: [LedgerRow]] = [:]
        var lastDay: (number: Double, month: String)?
        for row in rows {
            let day = (row.at.timeIntervalSince1970 / 86_400).rounded(.down)
            let month = lastDay.flatMap { $0.number == day ? $0.month : nil } ?? Ledger.month(of: row.at)
            lastDay = (day, month)
            months[month, default: []].append(row)
        }
        return months.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// The month as the store has it; nil when it has none, or holds one that is not this device's month
    /// (damaged, or sealed with a key this machine no longer has): then this run's rows start it afresh.
    private func read(_ file: String, month: String, from months: any RecordStore) throws -> Ledger? {
        let bytes: Data
        do {
            bytes = try months.readRecord(named: file, maximumSize: LedgerCodec.maximumSize)
        } catch StoreError.recordMissing, StoreError.storeMissing {
            return nil
        } catch StoreError.refusedRecord {
            return nil
        }
        return try? bytes.withUnsafeBytes { try LedgerCodec.decode($0, deviceID: deviceID, month: month).ledger }
    }

    /// What the logs say was spent, into the store's ledger: each row with its provider's account as the
    /// published entry has it (the logs do not say whose an hour was; the account signed in now is taken).
    ///
    /// Sources that read back what they made of unchanged logs give the same rows as last time: when every
    /// one did, and the accounts and prices are the same, the last publish's `stamp` (younger than a day)
    /// says so and no month is read or written (a run with nothing new pays nothing for the ledger).
    static func publish(
        _ sources: [Collected], of providers: [ProviderUsage], to store: any RecordStore, deviceID: DeviceID,
        prices: PriceSource, now: Date, stamp: String, keptMonths: String
    ) throws {
        let accounts = Dictionary(
            providers.map { ($0.providerID, $0.accountEmail) }, uniquingKeysWith: { first, _ in first })
        // The table's fingerprint, not its date: reading the table is most of a run with nothing new.
        var key: String? = "aggctl \(Aggctl.version)\n\(prices.fingerprint)"
        for source in sources {
            guard let fingerprint = source.ledgerFingerprint, let text = key else {
                key = nil
                break
            }
            key =
                text + "\n\(source.usage.providerID) \(accounts[source.usage.providerID].flatMap { $0 } ?? "")"
                + " \(String(fingerprint, radix: 16))"
        }
        // Trusted a day at most: a store emptied meanwhile gets this machine's months back within a day.
        let stampedAt = (try? FileManager.default.attributesOfItem(atPath: stamp)[.modificationDate]) as? Date
        if let key, let stampedAt, Date().timeIntervalSince(stampedAt) < 86_400,
            FileSystem.contents(of: stamp) == Data(key.utf8)
        {
            return
        }
        let owned = sources.flatMap(\.ledger).map { row in
            var row = row
            row.accountEmail = accounts[row.providerID] ?? nil
            return row
        }
        guard !owned.isEmpty else { return }
        var publisher = LedgerPublisher(store: store, deviceID: deviceID)
        publisher.kept = keptMonths
        _ = try publisher.publish(owned, now: now, pricesAsOf: prices.asOf)
        // Kept only once every month is in the store: a failed month is tried again next run.
        if let key {
            try? FileManager.default.createDirectory(
                atPath: String(stamp[..<(stamp.lastIndex(of: "/") ?? stamp.endIndex)]),
                withIntermediateDirectories: true)
            try? AtomicFile.writePrivate(Data(key.utf8), to: stamp)
        } else {
            try? FileManager.default.removeItem(atPath: stamp)
        }
    }
}
