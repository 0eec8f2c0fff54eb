import Portable
import Serialization

/// A record as canonical JSON: byte for byte what `JSONEncoder` writes with sorted keys and unescaped
/// slashes, compact or indented (`RecordCodecTests` holds the two together on random and hostile
/// records). What is written comes from the schema (`SchemaObject.write`); this is only the JSON.
///
/// Dates are RFC 3339 texts (`RFC3339.format`), and a number that is not finite fails the write as it
/// fails `JSONEncoder`'s.
struct RecordJSON {
    private(set) var bytes: [UInt8] = []
    /// Two spaces an level and `"key" : value`, as `JSONEncoder`'s `.prettyPrinted`.
    private let pretty: Bool
    private var depth = 0
    /// Whether the innermost open object or array has a member yet; `outer`, the same of the ones
    /// around it, innermost last.
    private var hasMember = false
    private var outer: [Bool] = []

    init(pretty: Bool = false, capacity: Int = 4096) {
        self.pretty = pretty
        bytes.reserveCapacity(capacity)
    }

    /// Starts a member of the open object: the comma before all but the first, and `"key":`.
    mutating func member(_ key: StaticString) {
        element()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
        if pretty { bytes.append(UInt8(ascii: " ")) }
        bytes.append(UInt8(ascii: ":"))
        if pretty { bytes.append(UInt8(ascii: " ")) }
    }

    /// Starts an element of the open array: the comma before all but the first.
    mutating func element() {
        if hasMember { bytes.append(UInt8(ascii: ",")) }
        hasMember = true
        newline()
    }

    private mutating func newline() {
        guard pretty else { return }
        bytes.append(0x0A)
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
    }

    mutating func object(_ members: (inout RecordJSON) throws -> Void) throws {
        try container(open: UInt8(ascii: "{"), close: UInt8(ascii: "}"), members)
    }

    mutating func array(_ elements: (inout RecordJSON) throws -> Void) throws {
        try container(open: UInt8(ascii: "["), close: UInt8(ascii: "]"), elements)
    }

    private mutating func container(open: UInt8, close: UInt8, _ body: (inout RecordJSON) throws -> Void) throws {
        bytes.append(open)
        outer.append(hasMember)
        hasMember = false
        depth += 1
        try body(&self)
        depth -= 1
        // An empty container is an empty line in `JSONEncoder`'s indented form.
        if pretty && !hasMember { bytes.append(0x0A) }
        newline()
        hasMember = outer.removeLast()
        bytes.append(close)
    }

    mutating func integer(_ value: Int) {
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func boolean(_ value: Bool) {
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    mutating func null() {
        bytes.append(contentsOf: "null".utf8)
    }

    /// Swift's shortest round-tripping text without a final `.0`: how `JSONEncoder` writes a `Double`.
    mutating func double(_ value: Double) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(codingPath: [], debugDescription: "Unable to encode \(value) directly in JSON."))
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Quotes and backslashes escaped, control characters as `\b`, `\t`, `\n`, `\f`, `\r` or `\u00xx`;
    /// everything else (slashes, DEL, all of Unicode) as it is.
    mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), byte])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0..<0x20:
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
