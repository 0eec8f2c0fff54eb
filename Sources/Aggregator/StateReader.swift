import Portable
import Snapshots

/// aggctl's own state files read straight from their bytes, for the shapes aggctl writes: `check`'s
/// alert state (`alerts.json`) and `publish`'s history (`history.json`).
///
/// Each is read whole on every run (every minute, under cron or `watch`), and Foundation's decoder took
/// about 300 instructions a byte of them: half of a `check` at a thousand accounts, and most of a
/// `publish` with two weeks of history. This reader gives up (`Unusual`) on anything it is not sure to
/// read exactly as Foundation's decoder does (a key given twice, a value of another type, a number or
/// date that does not convert), and the caller then leaves the file to that decoder, which stays the
/// judge of what is valid state. What it accepts it reads to the same values (differential tests with
/// mutated files, and the `alert-state` fuzz target, hold it to that).
package enum StateReader {
    /// Why the quick reader gave up; never reported, only a sign to read the file the usual way.
    package struct Unusual: Error {
        package init() {}
    }

    /// `{"<key>": {account state}, ...}`
    package static func accounts(_ s: inout JSONScanner) throws(Unusual) -> [String: AccountAlertState] {
        try dictionary(&s) { (s) throws(Unusual) in try account(&s) }
    }

    /// `{"<key>|<window>": "<date>", ...}`
    package static func paceAlerted(_ s: inout JSONScanner) throws(Unusual) -> [String: Date] {
        try dictionary(&s) { (s) throws(Unusual) in try date(&s) }
    }

    /// An object read as a dictionary: every key once.
    package static func dictionary<Value>(
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

    /// The members an account's state and a held restore share.
    private struct Figures {
        var remainingPercent: Double?
        var lastUpdated: Date?
        var resetsAt: Date??

        /// Reads the member `key` when it is one of these, and says whether it was.
        mutating func read(_ key: JSONScanner.RawString, _ s: inout JSONScanner) throws(Unusual) -> Bool {
            if s.key(key, is: "remainingPercent") {
                try once(&remainingPercent, try double(&s))
            } else if s.key(key, is: "lastUpdated") {
                try once(&lastUpdated, try date(&s))
            } else if s.key(key, is: "resetsAt") {
                try once(&resetsAt, try optional(&s) { (s) throws(Unusual) in try date(&s) })
            } else {
                return false
            }
            return true
        }
    }

    private static func account(_ s: inout JSONScanner) throws(Unusual) -> AccountAlertState {
        var figures = Figures()
        var heldRestore: HeldRestore??
        var armedWarnings: [Int]?
        var window: String??
        var absentSince: Date??
        try members(&s) { (s, key) throws(Unusual) in
            if try figures.read(key, &s) { return }
            if s.key(key, is: "heldRestore") {
                try once(&heldRestore, try optional(&s) { (s) throws(Unusual) in try held(&s) })
            } else if s.key(key, is: "armedWarnings") {
                try once(&armedWarnings, try integers(&s))
            } else if s.key(key, is: "window") {
                try once(&window, try optional(&s) { (s) throws(Unusual) in try string(&s) })
            } else if s.key(key, is: "absentSince") {
                try once(&absentSince, try optional(&s) { (s) throws(Unusual) in try date(&s) })
            } else {
                try skip(&s)
            }
        }
        guard let remainingPercent = figures.remainingPercent, let lastUpdated = figures.lastUpdated,
            let armedWarnings
        else { throw Unusual() }
        return AccountAlertState(
            remainingPercent: remainingPercent, lastUpdated: lastUpdated, resetsAt: figures.resetsAt ?? nil,
            heldRestore: heldRestore ?? nil, armedWarnings: armedWarnings, window: window ?? nil,
            absentSince: absentSince ?? nil)
    }

    private static func held(_ s: inout JSONScanner) throws(Unusual) -> HeldRestore {
        var figures = Figures()
        try members(&s) { (s, key) throws(Unusual) in
            if try !figures.read(key, &s) { try skip(&s) }
        }
        guard let remainingPercent = figures.remainingPercent, let lastUpdated = figures.lastUpdated else {
            throw Unusual()
        }
        return HeldRestore(
            remainingPercent: remainingPercent, lastUpdated: lastUpdated, resetsAt: figures.resetsAt ?? nil)
    }

    // MARK: Pieces

    /// Each member of an object, its key given to `member`, which must read the value.
    package static func members(
        _ s: inout JSONScanner, _ member: (inout JSONScanner, JSONScanner.RawString) throws(Unusual) -> Void
    ) throws(Unusual) {
        try syntax { () throws(JSONSyntaxError) in try s.enterObject() }
        var first = true
        while let key = try syntax({ () throws(JSONSyntaxError) in try s.nextKey(&first) }) {
            try member(&s, key)
        }
    }

    /// Sets a field met for the first time; a key given twice is left to Foundation's decoder.
    package static func once<Value>(_ field: inout Value?, _ value: Value) throws(Unusual) {
        guard field == nil else { throw Unusual() }
        field = value
    }

    package static func optional<Value>(
        _ s: inout JSONScanner, _ value: (inout JSONScanner) throws(Unusual) -> Value
    ) throws(Unusual) -> Value? {
        if try syntax({ () throws(JSONSyntaxError) in try s.readNull() }) { return nil }
        return try value(&s)
    }

    package static func skip(_ s: inout JSONScanner) throws(Unusual) {
        try syntax { () throws(JSONSyntaxError) in try s.skipValue() }
    }

    package static func double(_ s: inout JSONScanner) throws(Unusual) -> Double {
        guard try kind(&s) == .number else { throw Unusual() }
        let raw = try syntax { () throws(JSONSyntaxError) in try s.readRawNumber() }
        guard let value = s.double(raw) else { throw Unusual() }
        return value
    }

    package static func int(_ s: inout JSONScanner) throws(Unusual) -> Int {
        guard try kind(&s) == .number else { throw Unusual() }
        let raw = try syntax { () throws(JSONSyntaxError) in try s.readRawNumber() }
        guard let value = s.int(raw) else { throw Unusual() }
        return value
    }

    package static func string(_ s: inout JSONScanner) throws(Unusual) -> String {
        guard try kind(&s) == .string else { throw Unusual() }
        return s.string(try syntax { () throws(JSONSyntaxError) in try s.readRawString() })
    }

    /// A date as `SnapshotCodec.makeDecoder` reads one: an RFC 3339 string.
    package static func date(_ s: inout JSONScanner) throws(Unusual) -> Date {
        guard try kind(&s) == .string else { throw Unusual() }
        let raw = try syntax { () throws(JSONSyntaxError) in try s.readRawString() }
        let date =
            raw.hasEscapes
            ? RFC3339.parse(s.string(raw))
            : RFC3339.parse(bytes: UnsafeRawBufferPointer(start: s.base + raw.start, count: raw.end - raw.start))
        guard let date else { throw Unusual() }
        return date
    }

    private static func integers(_ s: inout JSONScanner) throws(Unusual) -> [Int] {
        try array(&s) { (s) throws(Unusual) in try int(&s) }
    }

    /// An array, each element read by `element`.
    package static func array<Value>(
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
    package static func syntax<Value>(_ step: () throws(JSONSyntaxError) -> Value) throws(Unusual) -> Value {
        do { return try step() } catch { throw Unusual() }
    }
}
