import Portable
import Serialization

/// A kind of value a record field can hold, and its three codings: read from a record's JSON, written
/// as canonical JSON, and kept in the binary form of aggctl's caches.
///
/// Each kind of value is coded once, here and in `SchemaObject`; each field of the record is then one
/// line of its type's `schema` (beside the type's properties, in `Model/`). The JSON reader, the JSON
/// writer and the cache coding all walk those lines: a field cannot be read one way and written another.
protocol SchemaValue: KeptValue {
    /// Reads the value under the cursor; `.schema` for a value of the wrong shape (the reader keeps
    /// reading the object's other members), `.syntax` for JSON that is not JSON (the reading ends).
    static func read(_ s: inout JSONScanner, _ history: HistoryDetail) throws(FastRecordDecoder.Failure) -> Self
    /// Writes the value (not its key).
    func write(to json: inout RecordJSON) throws
    /// Whether a record may leave the field out: true of optional values, which are nil then.
    static var isOptional: Bool { get }
    /// Whether the value is nil: a member the writer leaves out.
    var isNil: Bool { get }
}

extension SchemaValue {
    static var isOptional: Bool { false }
    var isNil: Bool { false }
}

/// A value in the binary form of aggctl's caches: every `SchemaValue`, and what is derived from a record
/// while reading it (`SchemaField.derived`).
protocol KeptValue: SendableMetatype {
    func keep(in out: inout BinaryWriter)
    static func restore(from reader: inout BinaryReader) throws -> Self
}

extension String: SchemaValue {
    static func read(_ s: inout JSONScanner, _: HistoryDetail) throws(FastRecordDecoder.Failure) -> String {
        try FastRecordDecoder.string(&s)
    }
    func write(to json: inout RecordJSON) { json.string(self) }
    func keep(in out: inout BinaryWriter) { out.string(self) }
    static func restore(from reader: inout BinaryReader) throws -> String { try reader.string() }
}

extension Int: SchemaValue {
    static func read(_ s: inout JSONScanner, _: HistoryDetail) throws(FastRecordDecoder.Failure) -> Int {
        try FastRecordDecoder.int(&s)
    }
    func write(to json: inout RecordJSON) { json.integer(self) }
    func keep(in out: inout BinaryWriter) { out.int(self) }
    static func restore(from reader: inout BinaryReader) throws -> Int { try reader.int() }
}

extension Double: SchemaValue {
    static func read(_ s: inout JSONScanner, _: HistoryDetail) throws(FastRecordDecoder.Failure) -> Double {
        try FastRecordDecoder.double(&s)
    }
    func write(to json: inout RecordJSON) throws { try json.double(self) }
    func keep(in out: inout BinaryWriter) { out.double(self) }
    static func restore(from reader: inout BinaryReader) throws -> Double { try reader.double() }
}

/// Dates are RFC 3339 texts in a record (`RFC3339`), seconds in the caches.
extension Date: SchemaValue {
    static func read(_ s: inout JSONScanner, _: HistoryDetail) throws(FastRecordDecoder.Failure) -> Date {
        try FastRecordDecoder.date(&s)
    }
    func write(to json: inout RecordJSON) { json.string(RFC3339.format(self)) }
    func keep(in out: inout BinaryWriter) { out.date(self) }
    static func restore(from reader: inout BinaryReader) throws -> Date { try reader.date() }
}

extension Optional: KeptValue where Wrapped: KeptValue {
    func keep(in out: inout BinaryWriter) {
        out.u8(self == nil ? 0 : 1)
        if let self { self.keep(in: &out) }
    }
    static func restore(from reader: inout BinaryReader) throws -> Self {
        try reader.optional { try Wrapped.restore(from: &$0) }
    }
}

/// An optional member: absent or `null` reads as nil, and nil is left out when written.
extension Optional: SchemaValue where Wrapped: SchemaValue {
    static func read(_ s: inout JSONScanner, _ history: HistoryDetail) throws(FastRecordDecoder.Failure) -> Self {
        if try FastRecordDecoder.kind(&s) == .null { return try FastRecordDecoder.null(&s) }
        return try Wrapped.read(&s, history)
    }
    func write(to json: inout RecordJSON) throws {
        // The writer leaves nil members out; a nil inside a list is written as JSON's null.
        if let self { try self.write(to: &json) } else { json.null() }
    }
    static var isOptional: Bool { true }
    var isNil: Bool { self == nil }
}

/// A list; an element of the wrong shape fails the list (with its index in the path).
extension Array: SchemaValue where Element: SchemaValue {
    static func read(_ s: inout JSONScanner, _ history: HistoryDetail) throws(FastRecordDecoder.Failure) -> Self {
        try FastRecordDecoder.list(&s) { (s) throws(FastRecordDecoder.Failure) in try Element.read(&s, history) }
    }
    func write(to json: inout RecordJSON) throws {
        try json.array { json in
            for element in self {
                json.element()
                try element.write(to: &json)
            }
        }
    }
}

extension Array: KeptValue where Element: KeptValue {
    func keep(in out: inout BinaryWriter) {
        out.u32(UInt32(count))
        for element in self { element.keep(in: &out) }
    }
    static func restore(from reader: inout BinaryReader) throws -> Self {
        let count = try reader.count()
        var elements: Self = []
        elements.reserveCapacity(Swift.min(count, 1024))
        for _ in 0..<count { elements.append(try Element.restore(from: &reader)) }
        return elements
    }
}
