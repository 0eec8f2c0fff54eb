import Portable
import Snapshots

/// What a store's records pass through when they are sealed (docs/privacy.md): sealed on their way in,
/// opened on their way out. Made by the command line from its key files; the store knows nothing of keys.
public protocol RecordSealing: Sendable {
    /// The keys' ids, for the names of caches: records read with other keys are cached apart, and a run
    /// without a key never takes another's opened records from a cache.
    var fingerprint: String { get }
    /// The bytes to store for a record's JSON under `fileName`.
    func seal(_ record: Data, fileName: String) throws -> Data
    /// What a record's stored bytes are; an opened record is written to the memory `room` gives for its
    /// length, which may be where `bytes` lie (they are read before it is asked for).
    func open(
        _ bytes: UnsafeRawBufferPointer, fileName: String, into room: (Int) -> UnsafeMutableRawBufferPointer
    ) -> SealedRecord
}

/// A stored record as its sealing judges it.
public enum SealedRecord {
    /// Plaintext, read as it is; `note` when that is worth a line (not encrypted, while keys are given).
    case plain(note: String?)
    /// Opened into the room asked for: the record's length.
    case opened(count: Int)
    /// Why it cannot be read: no key for it, it does not authenticate, plaintext where sealing is required.
    case refused(String)
}

/// A store whose records are sealed: every record written is sealed first (no plaintext reaches the
/// store, not even a temporary file), every record read is opened before it is decoded. Everything else
/// goes to the store it wraps, which carries envelopes as it carries records.
public struct SealedStore<Base: RecordStore>: RecordStore {
    public let base: Base
    public let sealing: any RecordSealing

    public init(base: Base, sealing: any RecordSealing) {
        self.base = base
        self.sealing = sealing
    }

    public var displayName: String { base.displayName }
    public var cacheName: String { base.cacheName + " (sealed: \(sealing.fingerprint))" }
    public var traits: StoreTraits { base.traits }
    public func listRecords() throws -> [RecordInfo] { try base.listRecords() }
    public func listRecordNames() throws -> [RecordInfo] { try base.listRecordNames() }
    public func namesStamp() -> RecordVersion? { base.namesStamp() }
    public func listRecords(named names: [String]) throws -> [RecordInfo] { try base.listRecords(named: names) }

    public func readRecord(named name: String, maximumSize: Int) throws -> Data {
        var buffer = RecordBuffer()
        defer { buffer.deallocate() }
        let count = try readRecord(named: name, maximumSize: maximumSize, into: &buffer)
        return Data(UnsafeRawBufferPointer(rebasing: buffer.bytes[0..<count]))
    }

    public func readRecord(named name: String, maximumSize: Int, into buffer: inout RecordBuffer) throws -> Int {
        let size = try base.readRecord(named: name, maximumSize: maximumSize, into: &buffer)
        // The record is opened into the same buffer (not copied again): the envelope is read first, so
        // room for the record may take the envelope's memory.
        let envelope = UnsafeRawBufferPointer(rebasing: buffer.bytes[0..<size])
        let outcome = sealing.open(envelope, fileName: name) { count in
            buffer.reserve(count)
            return buffer.bytes
        }
        switch outcome {
        case .plain(let note):
            buffer.note = note
            return size
        case .opened(let count):
            return count
        case .refused(let reason):
            throw StoreError.refusedRecord(name: name, reason: reason)
        }
    }

    public func writeRecord(_ data: Data, for deviceID: DeviceID) throws {
        try base.writeRecord(try sealing.seal(data, fileName: deviceID.recordName), for: deviceID)
    }

    public func removeRecord(for deviceID: DeviceID) throws { try base.removeRecord(for: deviceID) }
}

/// A staging store stays one when sealed (its temporary files hold sealed bytes too).
extension SealedStore: StagingStore where Base: StagingStore {
    public func stageRecord(_ data: Data, for deviceID: DeviceID) throws -> StagedRecord {
        try base.stageRecord(try sealing.seal(data, fileName: deviceID.recordName), for: deviceID)
    }
    public func commitRecord(_ staged: StagedRecord) throws { try base.commitRecord(staged) }
    public func discardRecord(_ staged: StagedRecord) { base.discardRecord(staged) }
    public func removeLeftoverTemporaryFiles(of deviceID: DeviceID, olderThan age: TimeInterval, now: Date) {
        base.removeLeftoverTemporaryFiles(of: deviceID, olderThan: age, now: now)
    }
}

/// `store` sealed with `sealing` (its kind kept: a staging store stays one).
public func sealed(_ store: some RecordStore, with sealing: any RecordSealing) -> any RecordStore {
    SealedStore(base: store, sealing: sealing)
}

extension SealedStore {
    /// Claims carry an event id and a device id, no figure: they are kept as the base store keeps them.
    public var claims: (any EventClaims)? { base.claims }

    /// A nested store's files are sealed too, each bound to its path from the outer store
    /// (`ledger/<deviceID>/2026-12.json`): a file moved to another folder does not open.
    public func nested(_ name: DeviceID) -> (any RecordStore)? {
        guard let nested = base.nested(name) else { return nil }
        return sealed(nested, with: Nesting(outer: sealing, folder: name))
    }
}

/// A sealing whose files live in a folder: the folder is part of the name each file is bound to.
private struct Nesting: RecordSealing {
    let outer: any RecordSealing
    let folder: DeviceID
    var fingerprint: String { outer.fingerprint }
    func seal(_ record: Data, fileName: String) throws -> Data {
        try outer.seal(record, fileName: folder.rawValue + "/" + fileName)
    }
    func open(
        _ bytes: UnsafeRawBufferPointer, fileName: String, into room: (Int) -> UnsafeMutableRawBufferPointer
    ) -> SealedRecord {
        outer.open(bytes, fileName: folder.rawValue + "/" + fileName, into: room)
    }
}
