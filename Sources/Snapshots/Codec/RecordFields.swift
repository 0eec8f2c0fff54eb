import Foundation

/// A stored record's fields as read, before validation: what both readers (`FastRecordDecoder` and
/// Foundation's decoder in `SnapshotCodec`) produce, so that validation and its messages exist once.
struct RecordFields {
    var schemaVersion: Int?
    var deviceID: String?
    var deviceName: String?
    var appVersion: String?
    var generatedAt: Date
    /// Each entry, or the one-line reason it cannot be used.
    var providers: [Result<ProviderUsage, EntryFailure>]

    struct EntryFailure: Error {
        var reason: String
    }

    /// Applies the schema's rules: a valid deviceID (the file name standing in for a missing one), a
    /// version of at least 1, normalised provider ids, and at least one usable provider.
    func validated(fileName: String) throws(RecordDecodingError) -> DecodedRecord {
        let schemaVersion = self.schemaVersion ?? 1
        guard schemaVersion >= 1 else {
            throw RecordDecodingError(reason: "schemaVersion \(schemaVersion) is not a valid version")
        }
        let rawID = deviceID ?? (fileName.hasSuffix(".json") ? String(fileName.dropLast(5)) : fileName)
        if let problem = DeviceID.problem(with: rawID) {
            throw RecordDecodingError(reason: "invalid deviceID '\(SnapshotCodec.printable(rawID))': \(problem)")
        }
        let id = DeviceID(rawValue: rawID)!

        var notes: [String] = []
        if schemaVersion > DeviceSnapshot.currentSchemaVersion {
            notes.append(
                "schemaVersion \(schemaVersion) is newer than this reader's \(DeviceSnapshot.currentSchemaVersion); "
                    + "read the fields it knows")
        }
        var usable: [ProviderUsage] = []
        usable.reserveCapacity(providers.count)
        for (index, entry) in providers.enumerated() {
            switch entry {
            case .success(var provider):
                if !Self.isNormalProviderID(provider.providerID) {
                    provider.providerID = provider.providerID.trimmingCharacters(in: .whitespaces).lowercased()
                }
                if let problem = ProviderUsage.problem(withProviderID: provider.providerID) {
                    notes.append("skipped providers[\(index)]: \(problem)")
                } else {
                    usable.append(provider)
                }
            case .failure(let failure):
                notes.append("skipped providers[\(index)]: \(failure.reason)")
            }
        }
        guard !usable.isEmpty else {
            let why = notes.last(where: { $0.hasPrefix("skipped") }).map { " (\($0))" } ?? ""
            throw RecordDecodingError(reason: "no usable providers\(why)")
        }
        let name = deviceName.flatMap { $0.isEmpty ? nil : $0 } ?? id.rawValue
        let snapshot = DeviceSnapshot(
            schemaVersion: schemaVersion, deviceID: id, deviceName: name, appVersion: appVersion,
            generatedAt: generatedAt, providers: usable)
        return DecodedRecord(snapshot: snapshot, notes: notes)
    }

    /// Already lowercase `[a-z0-9-]`: the common case, which needs no new string.
    private static func isNormalProviderID(_ id: String) -> Bool {
        !id.isEmpty && ProviderUsage.problem(withProviderID: id) == nil
    }
}
