import Portable
import Serialization
import Snapshots

/// Reads the ledger's months from a store (docs/format.md, "The ledger"): the months asked for, of every
/// device with a record there, each read as hostile (`LedgerCodec`): a month that is not one is a
/// problem naming its file, a row that cannot be used is left out with a problem, the rest are summed.
public enum LedgerReading {
    /// The `months` of every device publishing to `store`, read on several connections at once. With a
    /// `cacheFile`, a month whose file kept its version is taken from the cache, and the cache is kept.
    public static func read(
        _ store: any RecordStore, months: [String], cacheFile: String? = nil, readerVersion: String = ""
    ) throws -> (ledgers: [Ledger], problems: [RecordProblem]) {
        let devices = try store.listRecordNames().compactMap { info -> DeviceID? in
            guard info.name.hasSuffix(".json") else { return nil }
            return DeviceID(rawValue: String(info.name.dropLast(5)))
        }.sorted()
        let wanted = Set(months)
        let ledgerFolder = store.nested(DeviceID(alreadyValidated: "ledger"))
        let cache = cacheFile.map { LedgerMonthCache.load(from: $0, readerVersion: readerVersion) }
        let settled = Int64((Date().timeIntervalSince1970 - ParseCache.settleTime) * 1e9)
        let pieces = Parallel.evenPieces(
            devices.count, minimumPerWorker: max(1, devices.count / max(1, store.traits.readParallelism)))
        let read = try Parallel.makeArray(count: devices.count, pieces: pieces) { piece, emit in
            for index in pieces[piece] {
                emit(Self.months(of: devices[index], in: ledgerFolder, wanted: wanted, cache: cache, settled: settled))
            }
        }
        if let cacheFile, let cache {
            var kept = LedgerMonthCache()
            for device in read { for (key, entry) in device.kept { kept.entries[key] = entry } }
            let changed =
                kept.entries.count != cache.entries.count
                || kept.entries.contains { key, entry in cache.entries[key]?.version != entry.version }
            if changed { kept.save(to: cacheFile, readerVersion: readerVersion) }
        }
        return (read.flatMap(\.ledgers), read.flatMap(\.problems))
    }

    private struct DeviceMonths {
        var ledgers: [Ledger] = []
        var problems: [RecordProblem] = []
        /// What the cache keeps of this device: each month read or reused, and months not asked for whose
        /// file kept its version.
        var kept: [(LedgerMonthCache.Key, LedgerMonthCache.Entry)] = []
    }

    private static func months(
        of device: DeviceID, in ledgerFolder: (any RecordStore)?, wanted: Set<String>, cache: LedgerMonthCache?,
        settled: Int64
    ) -> DeviceMonths {
        var found = DeviceMonths()
        guard let folder = ledgerFolder?.nested(device) else { return found }
        let place = "ledger/\(device.rawValue)/"
        let listed: [RecordInfo]
        do {
            // With a cache, each month's version is needed: a folder examines its files for it.
            listed = try cache == nil ? folder.listRecordNames() : folder.listRecords()
        } catch StoreError.storeMissing {
            return found
        } catch {
            found.problems.append(RecordProblem(file: place, reason: "\(error)"))
            return found
        }
        for info in listed.sortedByName() {
            let month = String(info.name.dropLast(5))
            let key = LedgerMonthCache.Key(device: device, month: month)
            let cached = info.version.flatMap { version in
                cache?.entries[key].flatMap { $0.version == version ? $0 : nil }
            }
            guard wanted.contains(month) else {
                if let cached { found.kept.append((key, cached)) }
                continue
            }
            if let cached {
                found.ledgers.append(cached.ledger)
                found.problems += cached.notes.map { RecordProblem(file: place + info.name, reason: $0) }
                found.kept.append((key, cached))
                continue
            }
            do {
                let bytes = try folder.readRecord(named: info.name, maximumSize: LedgerCodec.maximumSize)
                let (ledger, notes) = try bytes.withUnsafeBytes { bytes throws in
                    try LedgerCodec.decode(bytes, deviceID: device, month: month)
                }
                found.ledgers.append(ledger)
                found.problems += notes.map { RecordProblem(file: place + info.name, reason: $0) }
                // A file changed just now may change again within its time stamp's tick: not kept.
                if let version = info.version, isSettled(version, before: settled) {
                    found.kept.append((key, LedgerMonthCache.Entry(version: version, ledger: ledger, notes: notes)))
                }
            } catch let error as RecordDecodingError {
                found.problems.append(RecordProblem(file: place + info.name, reason: error.reason))
            } catch {
                found.problems.append(RecordProblem(file: place + info.name, reason: "\(error)"))
            }
        }
        return found
    }

    /// As the parse cache judges a record: by its modification time (`ParseCache.settleTime`).
    private static func isSettled(_ version: RecordVersion, before settled: Int64) -> Bool {
        guard case .file(_, let modified, _, _) = version else { return true }
        return modified < settled
    }
}
