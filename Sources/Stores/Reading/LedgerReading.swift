import Portable
import Snapshots

/// Reads the ledger's months from a store (docs/format.md, "The ledger"): the months asked for, of every
/// device with a record there, each read as hostile (`LedgerCodec`): a month that is not one is a
/// problem naming its file, a row that cannot be used is left out with a problem, the rest are summed.
public enum LedgerReading {
    /// The `months` of every device publishing to `store`, read on several connections at once.
    public static func read(
        _ store: any RecordStore, months: [String]
    ) throws -> (ledgers: [Ledger], problems: [RecordProblem]) {
        let devices = try store.listRecordNames().compactMap { info -> DeviceID? in
            guard info.name.hasSuffix(".json") else { return nil }
            return DeviceID(rawValue: String(info.name.dropLast(5)))
        }.sorted()
        let wanted = Set(months)
        let ledgerFolder = store.nested(DeviceID(alreadyValidated: "ledger"))
        let pieces = Parallel.evenPieces(
            devices.count, minimumPerWorker: max(1, devices.count / max(1, store.traits.readParallelism)))
        let read = try Parallel.makeArray(count: devices.count, pieces: pieces) { piece, emit in
            for index in pieces[piece] {
                emit(Self.months(of: devices[index], in: ledgerFolder, wanted: wanted))
            }
        }
        return (read.flatMap(\.ledgers), read.flatMap(\.problems))
    }

    private static func months(
        of device: DeviceID, in ledgerFolder: (any RecordStore)?, wanted: Set<String>
    ) -> (ledgers: [Ledger], problems: [RecordProblem]) {
        guard let folder = ledgerFolder?.nested(device) else { return ([], []) }
        let place = "ledger/\(device.rawValue)/"
        var ledgers: [Ledger] = []
        var problems: [RecordProblem] = []
        let listed: [RecordInfo]
        do {
            listed = try folder.listRecordNames()
        } catch StoreError.storeMissing {
            return ([], [])
        } catch {
            return ([], [RecordProblem(file: place, reason: "\(error)")])
        }
        for info in listed.sortedByName() {
            let month = String(info.name.dropLast(5))
            guard wanted.contains(month) else { continue }
            do {
                let bytes = try folder.readRecord(named: info.name, maximumSize: LedgerCodec.maximumSize)
                let (ledger, notes) = try bytes.withUnsafeBytes { bytes throws in
                    try LedgerCodec.decode(bytes, deviceID: device, month: month)
                }
                ledgers.append(ledger)
                problems += notes.map { RecordProblem(file: place + info.name, reason: $0) }
            } catch let error as RecordDecodingError {
                problems.append(RecordProblem(file: place + info.name, reason: error.reason))
            } catch {
                problems.append(RecordProblem(file: place + info.name, reason: "\(error)"))
            }
        }
        return (ledgers, problems)
    }
}
