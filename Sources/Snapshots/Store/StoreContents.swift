import Foundation

/// Everything read from a store in one pass: the usable records and a problem for each file that was not.
public struct StoreContents: Sendable, Equatable {
    public var records: [StoredRecord]
    public var problems: [RecordProblem]

    public init(records: [StoredRecord] = [], problems: [RecordProblem] = []) {
        self.records = records
        self.problems = problems
    }
}

/// A record read from a store, with the file it came from.
public struct StoredRecord: Sendable, Equatable {
    public var fileName: String
    public var snapshot: DeviceSnapshot

    public init(fileName: String, snapshot: DeviceSnapshot) {
        self.fileName = fileName
        self.snapshot = snapshot
    }
}

/// A file in a store that could not be used, or was used with reservations.
public struct RecordProblem: Sendable, Equatable, Codable {
    public var file: String
    /// One line, lowercase, no trailing period.
    public var reason: String

    public init(file: String, reason: String) {
        self.file = file
        self.reason = reason
    }
}

extension SnapshotStore {
    /// Reads and decodes every record; a record that cannot be used becomes a problem, never an error.
    ///
    /// When two files claim the same `deviceID`, the one named after it is used and the other is reported;
    /// when none is, the first by file name is used. Records are returned sorted by file name, so the
    /// result does not depend on the order the store lists them in.
    /// - Throws: `SnapshotStoreError` only when the store itself cannot be listed.
    public func readContents() throws -> StoreContents {
        let listing = try listRecords().sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        var contents = StoreContents()
        var decoded: [StoredRecord] = []
        for info in listing {
            do {
                let data = try readRecord(named: info.name)
                let record = try SnapshotCodec.decode(data, fileName: info.name)
                decoded.append(StoredRecord(fileName: info.name, snapshot: record.snapshot))
                contents.problems += record.notes.map { RecordProblem(file: info.name, reason: $0) }
            } catch let error as SnapshotStoreError {
                contents.problems.append(RecordProblem(file: info.name, reason: error.reasonForProblem))
            } catch let error as RecordDecodingError {
                contents.problems.append(RecordProblem(file: info.name, reason: error.reason))
            } catch {
                contents.problems.append(RecordProblem(file: info.name, reason: "\(error)"))
            }
        }

        var chosen: [DeviceID: StoredRecord] = [:]
        for record in decoded {
            let id = record.snapshot.deviceID
            guard let existing = chosen[id] else {
                chosen[id] = record
                continue
            }
            let newIsNamed = record.fileName == id.recordName
            let (keep, drop) = newIsNamed ? (record, existing) : (existing, record)
            chosen[id] = keep
            contents.problems.append(
                RecordProblem(
                    file: drop.fileName,
                    reason: "claims deviceID '\(id)', already read from '\(keep.fileName)'; ignored"))
        }
        contents.records = chosen.values.sorted { $0.fileName.utf8.lexicographicallyPrecedes($1.fileName.utf8) }
        contents.problems.sort { ($0.file, $0.reason) < ($1.file, $1.reason) }
        return contents
    }
}
