import Portable
import Serialization
import Snapshots

/// `publish`'s history (`history.json`) read straight from its bytes: the file's one reader.
///
/// It is read whole on every run (every minute, under cron), and Foundation's decoder took about 300
/// instructions a byte of it: most of a `publish` with two weeks of history (100.7 ms against 22.9 ms,
/// BENCHMARKS.md). It refuses (`Unusual`) anything it is not sure to read exactly as Foundation's decoder
/// would (a key given twice, a value of another type, a number or date that does not convert): such a
/// file is not the history aggctl writes, and is set aside. What it accepts it reads to the same values
/// as Foundation's decoder (differential tests with mutated files and the `history` fuzz target hold it
/// to that, with Foundation as the oracle).
public enum StateReader {
    /// Why the reader refused the file.
    public struct Unusual: Error {
        public init() {}
    }

    /// An object read as a dictionary: every key once.
    public static func dictionary<Value>(
        _ s: inout JSONScanner, _ value: (inout JSONScanner) throws(Unusual) -> Value
    ) throws(Unusual) -> [String: Value] {
        try syntax { () throws(JSONSyntaxError) in try s.enterObject() }
        var result: [String: Value] = [:]
        var first = true
        while let raw = try syntax({ () throws(JSONSyntaxError) in try s.nextKey(&first) }) {
            let key = s.string(raw)
            guard result.updateValue(try value(&s), forKey: key) == nil else { throw Unusual() }
        }
        return result
    }

    public static func members(
        _ s: inout JSONScanner, _ member: (inout JSONScanner, JSONScanner.RawString) throws(Unusual) -> Void
    ) throws(Unusual) {
        try syntax { () throws(JSONSyntaxError) in try s.enterObject() }
        var first = true
        while let key = try syntax({ () throws(JSONSyntaxError) in try s.nextKey(&first) }) {
            try member(&s, key)
        }
    }

    /// Sets a field met for the first time; a key given twice is refused.
    public static func once<Value>(_ field: inout Value?, _ value: Value) throws(Unusual) {
        guard field == nil else { throw Unusual() }
        field = value
    }

    public static func optional<Value>(
        _ s: inout JSONScanner, _ value: (inout JSONScanner) throws(Unusual) -> Value
    ) throws(Unusual) -> Value? {
        if try syntax({ () throws(JSONSyntaxError) in try s.readNull() }) { return nil }
        return try value(&s)
    }

    public static func skip(_ s: inout JSONScanner) throws(Unusual) {
        try syntax { () throws(JSONSyntaxError) in try s.skipValue() }
    }

    public static func double(_ s: inout JSONScanner) throws(Unusual) -> Double {
        guard try kind(&s) == .number else { throw Unusual() }
        let raw = try syntax { () throws(JSONSyntaxError) in try s.readRawNumber() }
        guard let value = s.double(raw) else { throw Unusual() }
        return value
    }

    public static func int(_ s: inout JSONScanner) throws(Unusual) -> Int {
        guard try kind(&s) == .number else { throw Unusual() }
        let raw = try syntax { () throws(JSONSyntaxError) in try s.readRawNumber() }
        guard let value = s.int(raw) else { throw Unusual() }
        return value
    }

    public static func string(_ s: inout JSONScanner) throws(Unusual) -> String {
        guard try kind(&s) == .string else { throw Unusual() }
        return s.string(try syntax { () throws(JSONSyntaxError) in try s.readRawString() })
    }

    /// A date as `RecordCodec.makeDecoder` reads one: an RFC 3339 string.
    public static func date(_ s: inout JSONScanner) throws(Unusual) -> Date {
        guard try kind(&s) == .string else { throw Unusual() }
        let raw = try syntax { () throws(JSONSyntaxError) in try s.readRawString() }
        let date =
            raw.hasEscapes
            ? RFC3339.parse(s.string(raw))
            : RFC3339.parse(bytes: UnsafeRawBufferPointer(start: s.base + raw.start, count: raw.end - raw.start))
        guard let date else { throw Unusual() }
        return date
    }

    /// An array, each element read by `element`.
    public static func array<Value>(
        _ s: inout JSONScanner, _ element: (inout JSONScanner) throws(Unusual) -> Value
    ) throws(Unusual) -> [Value] {
        try syntax { () throws(JSONSyntaxError) in try s.enterArray() }
        var values: [Value] = []
        var first = true
        while try syntax({ () throws(JSONSyntaxError) in try s.nextElement(&first) }) { values.append(try element(&s)) }
        return values
    }

    private static func kind(_ s: inout JSONScanner) throws(Unusual) -> JSONScanner.Kind {
        try syntax { () throws(JSONSyntaxError) in try s.kind() }
    }

    /// A step of the scanner; a syntax error is only a reason to give up here.
    @inline(__always)
    public static func syntax<Value>(_ step: () throws(JSONSyntaxError) -> Value) throws(Unusual) -> Value {
        do { return try step() } catch { throw Unusual() }
    }
}
