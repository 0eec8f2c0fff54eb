// What a read of a store hands the merge: values of the record's world, so that the merge needs no store
// to be given them (tests and the fuzz harness build them directly).

/// Everything read from a store in one pass: the usable records and a problem for each file that was not.
package struct StoreContents: Sendable, Equatable {
    package var records: [StoredRecord]
    package var problems: [RecordProblem]
    /// Whether every outcome judges its record as listed. False when a read failed for a passing reason (a
    /// body cut short, a timeout): a memo of a merge of these contents would keep that failure.
    package var isFinal: Bool

    package init(records: [StoredRecord] = [], problems: [RecordProblem] = [], isFinal: Bool = true) {
        self.records = records
        self.problems = problems
        self.isFinal = isFinal
    }
}

/// A record read from a store, with the file it came from.
package struct StoredRecord: Sendable, Equatable {
    package var fileName: String
    package var snapshot: DeviceSnapshot

    package init(fileName: String, snapshot: DeviceSnapshot) {
        self.fileName = fileName
        self.snapshot = snapshot
    }
}

/// A file in a store that could not be used, or was used with reservations.
package struct RecordProblem: Error, Sendable, Equatable, Codable {
    package var file: String
    /// One line, lowercase, no trailing period.
    package var reason: String

    package init(file: String, reason: String) {
        self.file = file
        self.reason = reason
    }
}
