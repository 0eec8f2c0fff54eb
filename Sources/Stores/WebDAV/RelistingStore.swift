import Portable
import Snapshots

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A WebDAV store whose listings do not lose a record being replaced.
///
/// rclone and Apache delete the old record before renaming the new one on MOVE, so for a moment a record
/// is in no listing. A busy machine replaces its record every few seconds; readers missed it in about 1
/// read of 100 (`Benchmarks/listing_misses.py`). This decorator keeps the names of the last listing
/// (`ListedNames`, in the run's cache folder); a record that listing had and a new one lacks is looked for
/// up to three more times, 150, 300 and 450 ms apart, before it counts as gone: 0 misses in 1000. A record
/// removed for good costs the one run that finds it gone those looks. Everything else goes to the store
/// it wraps.
struct RelistingStore: StagingStore {
    let base: any StagingStore
    /// Where the last listing's names are kept.
    let namesPath: String
    /// Waits before the n-th look again (n from 1): a real pause in a run, a recorded one in a test.
    let pause: @Sendable (Int) -> Void

    /// How many times a record that went missing is looked for again.
    static let relists = 3
    /// How long the first pause is; the n-th is n times this.
    static let firstPause: UInt32 = 150_000

    init(base: any StagingStore, namesPath: String, pause: @escaping @Sendable (Int) -> Void = Self.sleep) {
        self.base = base
        self.namesPath = namesPath
        self.pause = pause
    }

    static func sleep(_ look: Int) { usleep(firstPause * UInt32(look)) }

    var displayName: String { base.displayName }
    var traits: StoreTraits { base.traits }
    var claims: (any EventClaims)? { base.claims }

    func listRecords() throws -> [RecordInfo] { try checked { try base.listRecords() } }
    func listRecordNames() throws -> [RecordInfo] { try checked { try base.listRecordNames() } }

    /// `list()`'s records, and those of the last listing that it lacks and a later look finds.
    private func checked(_ list: () throws -> [RecordInfo]) throws -> [RecordInfo] {
        var records = try list()
        let listed = ListedNames.load(from: namesPath, store: displayName)
        var missing = listed.subtracting(records.map(\.name))
        var look = 1
        while !missing.isEmpty && look <= Self.relists {
            pause(look)
            let found = try list().filter { missing.contains($0.name) }
            if !found.isEmpty {
                // What this listing had stands; the records found again join it.
                records += found
                missing.subtract(found.map(\.name))
            }
            look += 1
        }
        let names = Set(records.map(\.name))
        if names != listed { ListedNames.save(names, to: namesPath, store: displayName) }
        return records
    }

    func namesStamp() -> RecordVersion? { base.namesStamp() }
    func listRecords(named names: [String]) throws -> [RecordInfo] { try base.listRecords(named: names) }
    func readRecord(named name: String, maximumSize: Int) throws -> Data {
        try base.readRecord(named: name, maximumSize: maximumSize)
    }
    func readRecord(named name: String, maximumSize: Int, into buffer: inout RecordBuffer) throws -> Int {
        try base.readRecord(named: name, maximumSize: maximumSize, into: &buffer)
    }
    func writeRecord(_ data: Data, for deviceID: DeviceID) throws { try base.writeRecord(data, for: deviceID) }
    func removeRecord(for deviceID: DeviceID) throws { try base.removeRecord(for: deviceID) }
    func stageRecord(_ data: Data, for deviceID: DeviceID) throws -> StagedRecord {
        try base.stageRecord(data, for: deviceID)
    }
    func commitRecord(_ staged: StagedRecord) throws { try base.commitRecord(staged) }
    func discardRecord(_ staged: StagedRecord) { base.discardRecord(staged) }
    func removeLeftoverTemporaryFiles(of deviceID: DeviceID, olderThan age: TimeInterval, now: Date) {
        base.removeLeftoverTemporaryFiles(of: deviceID, olderThan: age, now: now)
    }
}
