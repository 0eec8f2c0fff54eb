import Foundation

/// Reads and writes `DeviceSnapshot` records.
///
/// Writing is canonical: sorted keys, two-space indentation, UTC dates with `Z`, a trailing newline, so the
/// same snapshot always gives the same bytes. Reading is tolerant (SPEC section 3): fractional seconds and
/// any UTC offset, unknown keys ignored, records without `deviceID` (the file name stands in) or
/// `schemaVersion` (1 is assumed), a newer `schemaVersion` when the fields it needs decode, and provider
/// entries that cannot be used are skipped with a note; only a record with no usable provider is refused.
public enum SnapshotCodec {
    /// The largest record a reader accepts; larger files are refused before they are read.
    public static let maximumRecordSize = 32 * 1024 * 1024

    /// Canonical JSON of `snapshot`.
    public static func encode(_ snapshot: DeviceSnapshot) throws -> Data {
        var data = try makeEncoder().encode(snapshot)
        data.append(0x0A)
        return data
    }

    /// Canonical JSON of any value made of the model's types (dates as RFC 3339 UTC).
    public static func encode<Value: Encodable>(value: Value, pretty: Bool = true) throws -> Data {
        try makeEncoder(pretty: pretty).encode(value)
    }

    /// Reads a stored record.
    ///
    /// - Parameter fileName: the record's file name in its store; without `.json` it stands in for a missing
    ///   `deviceID`.
    /// - Throws: `RecordDecodingError` with a one-line reason when the record cannot be used at all.
    public static func decode(_ data: Data, fileName: String) throws(RecordDecodingError) -> DecodedRecord {
        let stored: StoredSnapshot
        do {
            stored = try makeDecoder().decode(StoredSnapshot.self, from: data)
        } catch let error as DecodingError {
            throw RecordDecodingError(reason: describe(error))
        } catch {
            throw RecordDecodingError(reason: "not valid JSON")
        }

        let schemaVersion = stored.schemaVersion ?? 1
        guard schemaVersion >= 1 else {
            throw RecordDecodingError(reason: "schemaVersion \(schemaVersion) is not a valid version")
        }
        let rawID = stored.deviceID ?? stemOf(fileName)
        if let problem = DeviceID.problem(with: rawID) {
            throw RecordDecodingError(reason: "invalid deviceID '\(printable(rawID))': \(problem)")
        }
        let deviceID = DeviceID(rawValue: rawID)!

        var notes: [String] = []
        if schemaVersion > DeviceSnapshot.currentSchemaVersion {
            notes.append(
                "schemaVersion \(schemaVersion) is newer than this reader's \(DeviceSnapshot.currentSchemaVersion); "
                    + "read the fields it knows")
        }
        var providers: [ProviderUsage] = []
        for (index, entry) in stored.providers.enumerated() {
            switch entry.result {
            case .success(var provider):
                provider.providerID = provider.providerID.trimmingCharacters(in: .whitespaces).lowercased()
                if let problem = ProviderUsage.problem(withProviderID: provider.providerID) {
                    notes.append("skipped providers[\(index)]: \(problem)")
                } else {
                    providers.append(provider)
                }
            case .failure(let error):
                notes.append("skipped providers[\(index)]: \(describe(error, within: "providers[\(index)]"))")
            }
        }
        guard !providers.isEmpty else {
            let why = notes.last(where: { $0.hasPrefix("skipped") }).map { " (\($0))" } ?? ""
            throw RecordDecodingError(reason: "no usable providers\(why)")
        }

        let snapshot = DeviceSnapshot(
            schemaVersion: schemaVersion, deviceID: deviceID,
            deviceName: stored.deviceName.flatMap { $0.isEmpty ? nil : $0 } ?? deviceID.rawValue,
            appVersion: stored.appVersion, generatedAt: stored.generatedAt, providers: providers)
        return DecodedRecord(snapshot: snapshot, notes: notes)
    }

    static func makeEncoder(pretty: Bool = true) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(RFC3339.format(date))
        }
        return encoder
    }

    static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = RFC3339.parse(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "'\(printable(text))' is not an RFC 3339 date")
            }
            return date
        }
        return decoder
    }

    private static func stemOf(_ fileName: String) -> String {
        fileName.hasSuffix(".json") ? String(fileName.dropLast(5)) : fileName
    }

    /// Text from a record, cut short and stripped of control characters, fit to quote in a one-line message.
    public static func printable(_ text: String, limit: Int = 60) -> String {
        var out = String(text.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : Character($0) })
        if out.count > limit { out = String(out.prefix(limit)) + "..." }
        return out
    }

    /// A one-line reason for a decoding failure, naming the JSON path where it happened.
    static func describe(_ error: any Error, within prefix: String? = nil) -> String {
        guard let error = error as? DecodingError else { return "not valid JSON" }
        func path(_ codingPath: [any CodingKey]) -> String {
            var out = ""
            for key in codingPath {
                if let index = key.intValue {
                    out += "[\(index)]"
                } else {
                    out += out.isEmpty ? key.stringValue : "." + key.stringValue
                }
            }
            return out
        }
        func at(_ codingPath: [any CodingKey]) -> String {
            let text = path(codingPath)
            return text.isEmpty ? "" : " at '\(text)'"
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "missing '\(key.stringValue)'\(at(context.codingPath))"
        case .valueNotFound(_, let context):
            return "'\(path(context.codingPath))' is null"
        case .typeMismatch(let type, let context):
            return "'\(path(context.codingPath))' is not \(describeType(type))"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "not valid JSON" }
            let detail = context.debugDescription
            if detail.hasPrefix("'") { return "\(detail)\(at(context.codingPath))" }
            return "invalid value\(at(context.codingPath))"
        @unknown default:
            return "not a valid record"
        }
    }

    private static func describeType(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Double.Type, is Int.Type: return "a number"
        case is Bool.Type: return "a boolean"
        default:
            let name = "\(type)"
            if name.hasPrefix("Array") { return "an array" }
            if name.hasPrefix("Dictionary") { return "an object" }
            return "the expected value"
        }
    }
}

/// A stored record that could be read, with notes on what was tolerated (skipped entries, a newer schema).
public struct DecodedRecord: Sendable, Equatable {
    public var snapshot: DeviceSnapshot
    public var notes: [String]
}

/// Why a stored record cannot be used: one line, naming the field where it can.
public struct RecordDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }

    public init(reason: String) {
        self.reason = reason
    }
}

/// The tolerant shape records are read in before validation.
private struct StoredSnapshot: Decodable {
    var schemaVersion: Int?
    var deviceID: String?
    var deviceName: String?
    var appVersion: String?
    var generatedAt: Date
    var providers: [Lossy<ProviderUsage>]
}

/// Decodes a value without failing its container: one bad array element must not sink its neighbours.
struct Lossy<Value: Decodable>: Decodable {
    var result: Result<Value, any Error>

    init(from decoder: any Decoder) throws {
        result = Result { try Value(from: decoder) }
    }
}
