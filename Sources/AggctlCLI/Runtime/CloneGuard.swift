import Portable
import Serialization
import Snapshots
import Stores

/// Tells when another machine publishes under this machine's device id: a cloned VM, or a state folder
/// copied or synced between machines, gives two publishers one id, and each publish then replaces the
/// other's record: the other machine's accounts vanish from the store without a word.
///
/// After each write, `publish` keeps in the state directory what it wrote there (a digest of the bytes,
/// with the record's `generatedAt` and `deviceName`, per store). Before the next write it reads the
/// record under its id: a record this machine did not write (other bytes) was written by another
/// machine; only then is it decoded, to name it. A copied
/// state folder carries the memory along, so the first of the two machines to publish again after the
/// copy is told; from then on each is told on each run. Without a memory yet (the first publish, or one
/// after an upgrade), a record under our id that is newer than a minute ago and names another device
/// tells the same.
struct CloneGuard {
    let path: String

    /// What was written last to a store: enough to know the record again.
    struct Written: Codable, Equatable {
        var deviceID: String
        var generatedAt: Date
        var deviceName: String
        /// FNV-1a of the bytes written, in hex.
        var digest: String
    }

    static func digest(_ data: Data) -> String {
        String(data.withUnsafeBytes { BinaryWriter.fnv1a($0) }, radix: 16)
    }

    init(cacheFolder: String, store: String) {
        path = KeptFile.publishedRecord.path(in: cacheFolder, store: store)
    }

    func remembered() -> Written? {
        FileSystem.contents(of: path).flatMap { try? RecordCodec.makeDecoder().decode(Written.self, from: $0) }
    }

    /// Keeps what was just written; a memory that cannot be kept only costs a later warning.
    func remember(_ written: DeviceSnapshot, bytes: Data) {
        let value = Written(
            deviceID: written.deviceID.rawValue, generatedAt: written.generatedAt, deviceName: written.deviceName,
            digest: Self.digest(bytes))
        guard let data = try? RecordCodec.makeEncoder(pretty: false).encode(value) else { return }
        try? AtomicFile.writePrivate(data, to: path)
    }

    /// What the record under this machine's id says about who wrote it, when it is not what this machine
    /// wrote last.
    enum Finding: Equatable {
        /// Another machine writes under this id.
        case otherWriter(DeviceSnapshot)
        /// A record older than the one this machine wrote last, written at `wroteAt`: a restored backup or
        /// a replay of one of its own, not a second machine.
        case older(DeviceSnapshot, wroteAt: Date)
    }

    /// Whether the record under `deviceID` in `store` is not the one this machine wrote last (nil when it
    /// is, when there is none, or when it cannot be read).
    func check(in store: any RecordStore, deviceID: DeviceID, deviceName: String, now: Date) -> Finding? {
        guard let data = try? store.readRecord(named: deviceID.recordName) else { return nil }
        let last = remembered().flatMap { $0.deviceID == deviceID.rawValue ? $0 : nil }
        if let last, last.digest == Self.digest(data) { return nil }
        guard let found = try? RecordCodec.decode(data, fileName: deviceID.recordName).snapshot else { return nil }
        if let last {
            return found.generatedAt < last.generatedAt ? .older(found, wroteAt: last.generatedAt) : .otherWriter(found)
        }
        let recent = now.timeIntervalSince(found.generatedAt) < 60
        return recent && found.deviceName != deviceName ? .otherWriter(found) : nil
    }

    /// What `publish` says of a `Finding`.
    static func warning(deviceID: DeviceID, finding: Finding) -> String {
        switch finding {
        case .otherWriter(let other): warning(deviceID: deviceID, other: other)
        case .older(let found, let wroteAt):
            "the store held an older record of device '\(deviceID)' (written \(RFC3339.format(found.generatedAt)), "
                + "after this machine wrote one at \(RFC3339.format(wroteAt))): a restored backup or a replay; "
                + "this publish replaces it"
        }
    }

    /// The warning `publish` and `doctor` give, naming what to do.
    static func warning(deviceID: DeviceID, other: DeviceSnapshot) -> String {
        "another machine publishes as device '\(deviceID)' (its record names '\(other.deviceName)', written "
            + "\(RFC3339.format(other.generatedAt))): each publish replaces the other's record; on one of the "
            + "two machines run 'aggctl devices --new-id' to give it an id of its own"
    }
}
