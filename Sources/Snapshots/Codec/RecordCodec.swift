import Portable
import Serialization
import TextSafety

/// Reads and writes `DeviceSnapshot` records.
///
/// Writing is canonical: sorted keys, two-space indentation, UTC dates with `Z`, a trailing newline, so the
/// same snapshot always gives the same bytes. Reading is tolerant (the record format): fractional seconds and
/// any UTC offset, unknown keys ignored, records without `deviceID` (the file name stands in) or
/// `schemaVersion` (1 is assumed), a newer `schemaVersion` when the fields it needs decode, and provider
/// entries that cannot be used are skipped with a note; only a record with no usable provider is refused.
public enum RecordCodec {
    /// The largest record a reader accepts; larger files are refused before they are read.
    public static let maximumRecordSize = 32 * 1024 * 1024

    /// Canonical JSON of `snapshot`: indented for people (`publish --dry-run`), or compact (what
    /// `publish` stores), both byte for byte as `JSONEncoder` would write them.
    public static func encode(_ snapshot: DeviceSnapshot, pretty: Bool = true) throws -> Data {
        var json = RecordJSON(pretty: pretty)
        try RecordFields(snapshot).write(to: &json)
        return Data(json.bytes + [0x0A])
    }

    /// The record as `JSONEncoder` writes it through the model's `Codable`: the reference the tests hold
    /// the schema's writer to.
    public static func encodeWithFoundation(_ snapshot: DeviceSnapshot, pretty: Bool = false) throws -> Data {
        var data = try makeEncoder(pretty: pretty).encode(snapshot)
        data.append(0x0A)
        return data
    }

    /// Reads a stored record with the fast byte-level reader (`FastRecordDecoder`).
    ///
    /// - Parameters:
    ///   - fileName: the record's file name in its store; without `.json` it stands in for a missing
    ///     `deviceID`.
    ///   - keepHistory: false to validate but drop the history (`weeklySamples`, `tokens.daily`), keeping
    ///     only the weekly trend (`HistoryDetail.trend`).
    /// - Throws: `RecordDecodingError` with a one-line reason when the record cannot be used at all.
    public static func decode(
        _ data: Data, fileName: String, keepHistory: Bool = true
    ) throws(RecordDecodingError) -> DecodedRecord {
        try decode(data, fileName: fileName, history: keepHistory ? .full : .trend)
    }

    /// Reads a stored record keeping `history` of its history.
    public static func decode(
        _ data: Data, fileName: String, history: HistoryDetail
    ) throws(RecordDecodingError) -> DecodedRecord {
        let result = data.withUnsafeBytes { buffer in
            Result { () throws(RecordDecodingError) in
                try FastRecordDecoder.decode(buffer, fileName: fileName, history: history)
            }
        }
        return try result.get()
    }

    /// Reads a stored record with Foundation's `JSONDecoder`: the reference the fast reader is tested
    /// against. Same records and reasons, except that syntax errors carry no byte offset and malformed
    /// JSON inside unknown keys is accepted.
    public static func decodeWithFoundation(_ data: Data, fileName: String) throws(RecordDecodingError)
        -> DecodedRecord
    {
        let stored: StoredSnapshot
        let dropped = DroppedValues()
        do {
            let decoder = makeDecoder()
            decoder.userInfo[.droppedValues] = dropped
            stored = try decoder.decode(StoredSnapshot.self, from: data)
        } catch let error as DecodingError {
            throw RecordDecodingError(reason: describe(error))
        } catch {
            throw RecordDecodingError(reason: "not valid JSON")
        }
        let fields = RecordFields(
            schemaVersion: stored.schemaVersion, deviceID: stored.deviceID, deviceName: stored.deviceName,
            appVersion: stored.appVersion, generatedAt: stored.generatedAt,
            providers: ProviderEntries(
                read: stored.providers.map { entry in
                    entry.result.mapError { RecordFields.EntryFailure(reason: describe($0)) }
                }))
        return try fields.validated(fileName: fileName, dropped: dropped.notes)
    }

    public static func makeEncoder(pretty: Bool = true) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(RFC3339.format(date))
        }
        return encoder
    }

    public static func makeDecoder() -> JSONDecoder {
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

    /// Text from a record, cut short and with control characters escaped, fit to quote in a one-line message.
    public static func printable(_ text: String, limit: Int = 60) -> String {
        SafeText.line(text, limit: limit)
    }

    /// One step of the path to a value inside a document.
    enum PathComponent {
        case key(String)
        case index(Int)
    }

    /// The note on a value left out for its shape, the same from both readers.
    static func droppedNote(_ value: String, reason: String) -> String {
        "'\(value)' is left out: \(reason)"
    }

    /// `providers[0].session.usedPercent`.
    static func render(_ path: [PathComponent]) -> String {
        var out = ""
        for component in path {
            switch component {
            case .index(let index): out += "[\(index)]"
            case .key(let key): out += out.isEmpty ? key : "." + key
            }
        }
        return out
    }

    /// A one-line reason for a decoding failure, naming the JSON path where it happened.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "not valid JSON" }
        func path(_ codingPath: [any CodingKey]) -> String {
            render(codingPath.map { key in key.intValue.map(PathComponent.index) ?? .key(key.stringValue) })
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

    public init(snapshot: DeviceSnapshot, notes: [String]) {
        self.snapshot = snapshot
        self.notes = notes
    }
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
