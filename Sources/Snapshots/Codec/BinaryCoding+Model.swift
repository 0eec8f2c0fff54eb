import Portable
import Serialization

/// The model's types in the binary form of aggctl's kept files (the parse cache, the merge memo, the
/// collectors' states), as their schemas say (`SchemaObject.keep`).
extension BinaryWriter {
    public mutating func window(_ window: UsageWindow) { window.keep(in: &self) }
    public mutating func trend(_ trend: WeeklyTrend) { trend.keep(in: &self) }
    public mutating func limit(_ limit: Limit) { limit.keep(in: &self) }
    public mutating func snapshot(_ snapshot: DeviceSnapshot) { RecordFields(snapshot).keep(in: &self) }
}

extension BinaryReader {
    public mutating func window() throws -> UsageWindow { try UsageWindow.restore(from: &self) }
    public mutating func trend() throws -> WeeklyTrend { try WeeklyTrend.restore(from: &self) }
    public mutating func limit() throws -> Limit { try Limit.restore(from: &self) }

    /// A snapshot kept by `BinaryWriter.snapshot`: valid when it was kept, so not validated again beyond
    /// what a damaged file could break.
    public mutating func snapshot() throws -> DeviceSnapshot {
        let fields = try RecordFields.restore(from: &self)
        guard let version = fields.schemaVersion, let rawID = fields.deviceID, let id = DeviceID(rawValue: rawID),
            let name = fields.deviceName
        else { throw Corrupt() }
        return DeviceSnapshot(
            schemaVersion: version, deviceID: id, deviceName: name, appVersion: fields.appVersion,
            generatedAt: fields.generatedAt, providers: fields.providers.usable)
    }
}
