import Portable
import Serialization
import Snapshots

/// The newest record this reader has seen of each device in a store (its `generatedAt`): a record older
/// than that is a restored backup or a replay (a server, or anyone with write access, putting an older
/// record back). Its figures are not current, and shown as current they would fire alerts already sent
/// or say "available again" of a window still spent: it is left out, with a problem naming it.
///
/// Kept beside the store's caches (`<store>.newest`); a reader without that folder, or after it is
/// removed, knows no record as newer and takes what it finds.
struct NewestRecords {
    var seen: [String: Date]

    /// Devices not heard of for this long are forgotten: the memory stays as small as the store.
    static let memory: TimeInterval = 90 * 86_400

    static func path(in folder: String, store: String) -> String {
        KeptFile.newestRecords.path(in: folder, store: store)
    }

    static func load(from path: String) -> NewestRecords {
        let seen = FileSystem.contents(of: path).flatMap {
            try? RecordCodec.makeDecoder().decode([String: Date].self, from: $0)
        }
        return NewestRecords(seen: seen ?? [:])
    }

    /// Leaves out of `contents` each record older than one seen before from its device, with a problem,
    /// and remembers the newest of the rest. Whether the memory changed (then it is worth saving).
    mutating func screen(_ contents: inout StoreContents, now: Date) -> Bool {
        var changed = false
        var kept: [StoredRecord] = []
        kept.reserveCapacity(contents.records.count)
        for record in contents.records {
            let device = record.snapshot.deviceID.rawValue
            let generatedAt = record.snapshot.generatedAt
            if let newest = seen[device], generatedAt < newest {
                contents.problems.append(
                    RecordProblem(
                        file: record.fileName,
                        reason: "older than the record seen at \(RFC3339.format(newest)) from this device: a "
                            + "restored backup or a replay; its figures are left out"))
                continue
            }
            if seen[device] != generatedAt {
                seen[device] = generatedAt
                changed = true
            }
            kept.append(record)
        }
        let forgotten = seen.filter { now.timeIntervalSince($0.value) > Self.memory }.map(\.key)
        for device in forgotten { seen[device] = nil }
        guard changed || !forgotten.isEmpty || kept.count != contents.records.count else { return false }
        contents.records = kept
        contents.problems.sort { ($0.file, $0.reason) < ($1.file, $1.reason) }
        return changed || !forgotten.isEmpty
    }

    func save(to path: String) {
        guard let data = try? RecordCodec.makeEncoder(pretty: false).encode(seen) else { return }
        try? AtomicFile.writePrivate(data, to: path)
    }
}
