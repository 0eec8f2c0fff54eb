import Portable
import Serialization
import Snapshots

/// Field readers shared by the decoders of agent log lines. They are lenient: a value of another type
/// than expected reads as absent (skipped, and still validated), because agents change their log
/// shapes without notice and one odd field must not lose the line.
protocol LogLineDecoder {}

extension LogLineDecoder {
    /// Calls `member` with each key of the object at the scanner, which must then read that key's value.
    static func object(
        _ s: inout JSONScanner, _ member: (inout JSONScanner, JSONScanner.RawString) throws(JSONSyntaxError) -> Void
    ) throws(JSONSyntaxError) {
        try s.enterObject()
        var first = true
        while let key = try s.nextKey(&first) { try member(&s, key) }
    }

    static func raw(_ s: inout JSONScanner) throws(JSONSyntaxError) -> JSONScanner.RawString? {
        guard try s.kind() == .string else {
            try s.skipValue()
            return nil
        }
        return try s.readRawString()
    }

    static func text(_ s: inout JSONScanner) throws(JSONSyntaxError) -> String? {
        try raw(&s).map { s.string($0) }
    }

    static func date(_ s: inout JSONScanner) throws(JSONSyntaxError) -> Date? {
        guard let raw = try raw(&s) else { return nil }
        return RFC3339.parse(bytes: UnsafeRawBufferPointer(start: s.base + raw.start, count: raw.end - raw.start))
    }

    static func number(_ s: inout JSONScanner) throws(JSONSyntaxError) -> Double? {
        guard try s.kind() == .number else {
            try s.skipValue()
            return nil
        }
        let raw = try s.readRawNumber()  // apart, so that `s` is not copied to read the number
        return s.double(raw)
    }

    /// A number field as a whole count (tokens, minutes): nil when absent, negative, not finite or past
    /// `Int`'s range. Log lines are outside input: `Int(1e300)` would trap (found by fuzzing).
    static func count(_ s: inout JSONScanner) throws(JSONSyntaxError) -> Int? {
        try number(&s).flatMap(wholeCount)
    }
}

/// `value` as a whole count, nil when it is negative, not finite, or too large for an `Int`.
func wholeCount(_ value: Double) -> Int? {
    guard value.isFinite, value >= 0, value < 9.223_372_036_854_775e18 else { return nil }
    return Int(value)
}

extension Optional where Wrapped == Date {
    /// Keeps the later of this time and `other` (a missing time is earlier than any).
    mutating func raise(to other: Date?) {
        if let other, map({ other > $0 }) ?? true { self = other }
    }
}
