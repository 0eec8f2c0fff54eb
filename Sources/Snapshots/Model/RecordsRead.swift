// What a read of a store hands the merge: values of the record's world, so that the merge needs no store
// to be given them (tests and the fuzz harness build them directly).

/// Everything read from a store in one pass: the usable records and a problem for each file that was not.
public struct StoreContents: Sendable, Equatable {
    public var records: [StoredRecord]
    public var problems: [RecordProblem]
    /// Whether every outcome judges its record as listed. False when a read failed for a passing reason (a
    /// body cut short, a timeout): a memo of a merge of these contents would keep that failure.
    public var isFinal: Bool

    public init(records: [StoredRecord] = [], problems: [RecordProblem] = [], isFinal: Bool = true) {
        self.records = records
        self.problems = problems
        self.isFinal = isFinal
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
public struct RecordProblem: Error, Sendable, Equatable, Codable {
    public var file: String
    /// One line, lowercase, no trailing period.
    public var reason: String

    public init(file: String, reason: String) {
        self.file = file
        self.reason = reason
    }
}
