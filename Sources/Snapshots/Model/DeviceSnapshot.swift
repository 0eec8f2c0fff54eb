import Portable

/// One device's record in a store: everything the machine knew about its agent usage when it published.
///
/// Schema version 2 (the record format): version 1 plus `limits`. Stored as canonical JSON by `RecordCodec`, one file per device.
public struct DeviceSnapshot: Codable, Sendable, Equatable {
    /// The schema this library writes.
    public static let currentSchemaVersion = 2

    public var schemaVersion: Int
    public var deviceID: DeviceID
    /// A human name for the machine ("studio-mac"); defaults to the host name when publishing.
    public var deviceName: String
    /// The publisher's version, e.g. `aggctl 0.1.0`.
    public var appVersion: String?
    public var generatedAt: Date
    public var providers: [ProviderUsage]

    public init(
        schemaVersion: Int = DeviceSnapshot.currentSchemaVersion, deviceID: DeviceID, deviceName: String,
        appVersion: String? = nil, generatedAt: Date, providers: [ProviderUsage]
    ) {
        self.schemaVersion = schemaVersion
        self.deviceID = deviceID
        self.deviceName = deviceName
        self.appVersion = appVersion
        self.generatedAt = generatedAt
        self.providers = providers
    }

    private enum CodingKeys: String, CodingKey {
        case schemaVersion, deviceID, deviceName, appVersion, generatedAt, providers
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(schemaVersion, forKey: .schemaVersion)
        try container.encode(deviceID.rawValue, forKey: .deviceID)
        try container.encode(deviceName, forKey: .deviceName)
        try container.encodeIfPresent(appVersion, forKey: .appVersion)
        try container.encode(generatedAt, forKey: .generatedAt)
        try container.encode(providers, forKey: .providers)
    }

    /// Strict decoding of a complete record; tolerant reading of stored records goes through `RecordCodec`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        schemaVersion = try container.decode(Int.self, forKey: .schemaVersion)
        let rawID = try container.decode(String.self, forKey: .deviceID)
        guard let id = DeviceID(rawValue: rawID) else {
            throw DecodingError.dataCorruptedError(
                forKey: .deviceID, in: container, debugDescription: DeviceID.problem(with: rawID) ?? "invalid")
        }
        deviceID = id
        deviceName = try container.decode(String.self, forKey: .deviceName)
        appVersion = try container.decodeIfPresent(String.self, forKey: .appVersion)
        generatedAt = try container.decode(Date.self, forKey: .generatedAt)
        providers = try container.decode([ProviderUsage].self, forKey: .providers)
    }
}
