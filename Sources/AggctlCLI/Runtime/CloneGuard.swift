import Portable
import Snapshots

/// Tells when another machine publishes under this machine's device id: a cloned VM, or a state folder
/// copied or synced between machines, gives two publishers one id, and each publish then replaces the
/// other's record: the other machine's accounts vanish from the store without a word.
///
/// After each write, `publish` keeps in the state directory what it wrote there (the record's
/// `generatedAt` and `deviceName`, per store). Before the next write it reads the record under its id:
/// a record this machine did not write (another `generatedAt`) was written by another machine. A copied
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
    }

    init(stateDirectory: String, store: String) {
        path = ParseCache.path(in: stateDirectory + "/cache", store: store, extension: "published")
    }

    func remembered() -> Written? {
        FileSystem.contents(of: path).flatMap { try? SnapshotCodec.makeDecoder().decode(Written.self, from: $0) }
    }

    /// Keeps what was just written; a memory that cannot be kept only costs a later warning.
    func remember(_ written: DeviceSnapshot) {
        let value = Written(
            deviceID: written.deviceID.rawValue, generatedAt: written.generatedAt, deviceName: written.deviceName)
        guard let data = try? SnapshotCodec.makeEncoder(pretty: false).encode(value) else { return }
        try? AtomicFile.writePrivate(data, to: path)
    }

    /// The record another machine wrote under `deviceID` in `store`, when the record there is not the one
    /// this machine wrote last (nil when it is, when there is none, or when it cannot be read).
    func otherWriter(in store: any SnapshotStore, deviceID: DeviceID, deviceName: String, now: Date)
        -> DeviceSnapshot?
    {
        guard let data = try? store.readRecord(named: deviceID.recordName),
            let found = try? SnapshotCodec.decode(data, fileName: deviceID.recordName).snapshot
        else { return nil }
        if let last = remembered(), last.deviceID == deviceID.rawValue {
            // Dates go through the record's text: a second's fraction may be kept or not.
            return abs(found.generatedAt.timeIntervalSince(last.generatedAt)) < 0.001 ? nil : found
        }
        let recent = now.timeIntervalSince(found.generatedAt) < 60
        return recent && found.deviceName != deviceName ? found : nil
    }

    /// The warning `publish` and `doctor` give, naming what to do.
    static func warning(deviceID: DeviceID, other: DeviceSnapshot) -> String {
        "another machine publishes as device '\(deviceID)' (its record names '\(other.deviceName)', written "
            + "\(RFC3339.format(other.generatedAt))): each publish replaces the other's record; on one of the "
            + "two machines run 'aggctl devices --new-id' to give it an id of its own"
    }
}
