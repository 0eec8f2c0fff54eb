import Portable

/// Writes compact JSON straight into bytes, keys in the order given: aggctl's one JSON writer for what it
/// writes for programs and for itself (`status --json`, `export`'s state, `history.json`, `alerts.json`).
/// The record's canonical form, which must be `JSONEncoder`'s to the byte, is the record schema's
/// (`RecordJSON`).
///
/// Hand-written because `JSONEncoder` spent as long writing a 1000-device `status --json` as the fast
/// reader spent reading the store. Compact (one line, no indentation) because the document is for
/// programs and indentation made it 60% larger. Callers give keys in sorted order, so the output stays
/// canonical. Non-finite numbers (a sum that overflowed) are written as `null`, never as invalid JSON.
/// Given a sink it streams: bytes go out in pieces instead of being held whole in memory.
///
/// A writer may keep where some values went (`marking`), each with a `Mark` saying what it was made from,
/// so that a kept document can have them written again later (`status --json`'s values that depend on
/// the moment); a writer that marks nothing is a `JSONWriter<Never>`.
public struct JSONWriter<Mark: Equatable & Sendable> {
    @usableFromInline let output: ByteOutput
    /// Whether the innermost open container has a member yet; the same of the containers around it,
    /// one bit each (the innermost last), past 64 levels in `deeperMembers`. Bits, not an array of flags:
    /// every key and value asks, and the array's checks were a tenth of writing a report.
    @usableFromInline var hasMember = false
    @usableFromInline var outerMembers: UInt64 = 0
    @usableFromInline var deeperMembers: [Bool] = []
    /// Containers open.
    @usableFromInline var level = 0
    @usableFromInline var afterKey = false
    /// Where the marked values were written, for a writer asked to keep them.
    public var moments: [MomentMark]? { marks }
    @usableFromInline var marks: [MomentMark]?
    /// The last few repeatable values written and where (`pace(_:_:)`), and the slot the next one takes.
    @usableFromInline var recentPaces: [(value: Mark, range: Range<Int>)] = []
    @usableFromInline var nextRecentPace = 0

    /// A value written by `moment(_:_:)`: its bytes in the document, and what it was made from.
    public struct MomentMark: Sendable {
        public var range: Range<Int>
        public var value: Mark

        public init(range: Range<Int>, value: Mark) {
            self.range = range
            self.value = value
        }
    }

    /// Collects the JSON in memory (see `text`).
    ///
    /// - Parameter marking: keep where the values that depend on the moment were written (`moments`).
    public init(capacity: Int = 4096, marking: Bool = false) {
        output = ByteOutput(capacity: capacity, sink: nil)
        if marking { marks = [] }
    }

    /// Streams the JSON to `sink`; call `finish()` to write the rest and a final newline.
    public init(streamingTo sink: any ByteSink) {
        output = ByteOutput(capacity: ByteOutput.streamingPiece + 64 * 1024, sink: sink)
    }

    /// A writer for a run of array elements, comma-separated and without brackets, to be placed into an
    /// array by `array(pieces:)`: so that pieces of a long array can be written on several cores.
    public static func arrayPiece(capacity: Int, marking: Bool = false) -> JSONWriter {
        var writer = JSONWriter(capacity: capacity, marking: marking)
        writer.level = 1
        return writer
    }

    /// An array made of pieces from `arrayPiece(capacity:)`, in order; empty pieces are skipped.
    public mutating func array(pieces: [JSONWriter]) {
        open(UInt8(ascii: "["))
        // A finished piece is at its one level again, where `hasMember` says whether it wrote an element.
        for piece in pieces where piece.hasMember {
            if hasMember { output.byte(UInt8(ascii: ",")) }
            hasMember = true
            let start = output.position
            if marks != nil, let pieceMarks = piece.marks {
                marks! += pieceMarks.map { MomentMark(range: $0.range.shifted(by: start), value: $0.value) }
            }
            piece.output.withBytes { output.pass($0) }
        }
        close(UInt8(ascii: "]"))
    }

    /// Whether this writer keeps where the values that depend on the moment were written.
    public var isMarking: Bool { marks != nil }

    /// What was written so far, for a writer collecting in memory.
    public var text: String { output.text }

    /// The bytes written so far, for a writer collecting in memory.
    public func withBytes(_ body: (UnsafeRawBufferPointer) -> Void) { output.withBytes(body) }

    /// The bytes written so far, for a writer collecting in memory, copied out.
    public var data: Data {
        var data = Data()
        output.withBytes { data = Data($0) }
        return data
    }

    /// How many bytes an in-memory writer holds.
    public var byteCount: Int { output.byteCount }

    /// Ends the document with a newline and writes out what is still buffered.
    public func finish() {
        output.byte(0x0A)
        output.flush()
    }

    // MARK: Containers

    @inlinable public mutating func object(_ body: (inout JSONWriter) -> Void) {
        open(UInt8(ascii: "{"))
        body(&self)
        close(UInt8(ascii: "}"))
    }

    @inlinable public mutating func array<S: Sequence>(_ elements: S, _ body: (inout JSONWriter, S.Element) -> Void) {
        open(UInt8(ascii: "["))
        for element in elements { body(&self, element) }
        close(UInt8(ascii: "]"))
    }

    /// An array of `count` elements written by index: for large arrays of large values, where iterating
    /// the values would copy (and retain) each one.
    @inlinable public mutating func array(count: Int, _ body: (inout JSONWriter, Int) -> Void) {
        open(UInt8(ascii: "["))
        for index in 0..<count { body(&self, index) }
        close(UInt8(ascii: "]"))
    }

    /// Starts the member `name`; the next value written is its value. Inlined, as is the output's
    /// part, so that the name's length is known where it is written and its copy is a move or two.
    @inlinable @inline(__always)
    public mutating func key(_ name: StaticString) {
        separate()
        output.key(name)
        afterKey = true
    }

    /// A dictionary as an object, its keys in byte order: `JSONEncoder`'s sorted order for the keys
    /// aggctl makes, so that a state file written here reads as one `JSONEncoder` wrote.
    public mutating func dictionary<Value>(_ values: [String: Value], _ write: (inout JSONWriter, Value) -> Void) {
        let keys = Array(values.keys)
        object { json in
            for index in ByteOrder.sortedIndices(keys) {
                json.key(text: keys[index])
                write(&json, values[keys[index]]!)
            }
        }
    }

    /// Starts the member named by a text (a dictionary's key), escaped as a string value is.
    public mutating func key(text name: String) {
        string(name)
        output.byte(UInt8(ascii: ":"))
        afterKey = true
    }

    // MARK: Values

    /// Writes, with `body`, a value that depends on the moment it is judged at, and, for a marking
    /// writer, keeps where it went and what it follows from, so that it can be judged again later.
    @inlinable public mutating func moment(_ value: Mark, _ body: (inout JSONWriter) -> Void) {
        guard marks != nil else { return body(&self) }
        // The separator before the value is the document's; only the value itself is marked.
        separate()
        afterKey = true
        let start = output.position
        body(&self)
        marks!.append(MomentMark(range: start..<output.position, value: value))
    }

    /// Writes a pace, as `moment(_:_:)` writes any value that depends on the moment; one this writer
    /// wrote a moment ago for the same figures is copied instead of judged and formatted again.
    ///
    /// A per-model week is written as a limit and again in `modelWeekly`, and its pace (three figures in
    /// full, the costliest text of the document) was a third of what a limit added to a `status --json`
    /// and most of what it added to one from the template. The same figures judged at the same moment
    /// make the same text, so the document is byte for byte what it was.
    @inlinable public mutating func pace(_ value: Mark, _ body: (inout JSONWriter) -> Void) {
        separate()
        afterKey = true
        let start = output.position
        var copied = false
        for earlier in recentPaces where earlier.value == value {
            copied = output.repeatBytes(earlier.range)
            break
        }
        if copied {
            afterKey = false  // as writing the value would have left it
        } else {
            body(&self)
        }
        let range = start..<output.position
        if recentPaces.count < Self.pacesRemembered {
            recentPaces.append((value, range))
        } else {
            recentPaces[nextRecentPace] = (value, range)
        }
        nextRecentPace = (nextRecentPace + 1) % Self.pacesRemembered
        marks?.append(MomentMark(range: range, value: value))
    }

    /// Enough for an account's limits: each per-model week's pace is written again within a few values.
    @usableFromInline static var pacesRemembered: Int { 8 }

    /// A value another encoder wrote (whole, valid JSON), placed as it is.
    public mutating func encoded(_ value: UnsafeRawBufferPointer) {
        separate()
        output.pass(value)
    }

    @inlinable public mutating func null() {
        separate()
        output.text("null")
    }

    @inlinable public mutating func bool(_ value: Bool) {
        separate()
        output.text(value ? "true" : "false")
    }

    @inlinable public mutating func int(_ value: Int?) {
        guard let value else { return null() }
        separate()
        output.integer(value)
    }

    @inlinable public mutating func double(_ value: Double?) {
        guard let value, value.isFinite else { return null() }
        separate()
        // Whole numbers (most percentages) as integers; others in Swift's shortest round-tripping form.
        if value == value.rounded(), abs(value) < 1e15 {
            if value == 0 && value.sign == .minus { output.byte(UInt8(ascii: "-")) }
            output.integer(Int(value))
        } else {
            output.fraction(value)
        }
    }

    @inlinable public mutating func date(_ value: Date?) {
        guard let value else { return null() }
        separate()
        output.byte(UInt8(ascii: "\""))
        output.date(value)
        output.byte(UInt8(ascii: "\""))
    }

    @inlinable public mutating func string(_ value: String?) {
        guard let value else { return null() }
        separate()
        output.byte(UInt8(ascii: "\""))
        // In place when the text is contiguous (native strings are); copying to call withUTF8 retained
        // every string written.
        if value.utf8.withContiguousStorageIfAvailable({ Self.escape($0, into: output) }) == nil {
            var copy = value
            copy.withUTF8 { Self.escape($0, into: output) }
        }
        output.byte(UInt8(ascii: "\""))
    }

    // MARK: Layout

    @inlinable mutating func open(_ bracket: UInt8) {
        separate()
        output.byte(bracket)
        if level > 0 {
            // The enclosing container's flag goes onto the stack (which holds level - 1 flags), its
            // oldest bit into `deeperMembers` once the word is full.
            if level - 1 >= 64 { deeperMembers.append(outerMembers >> 63 == 1) }
            outerMembers = outerMembers << 1 | (hasMember ? 1 : 0)
        }
        hasMember = false
        level += 1
    }

    @inlinable mutating func close(_ bracket: UInt8) {
        level -= 1
        if level > 0 {
            hasMember = outerMembers & 1 == 1
            outerMembers >>= 1
            if level - 1 >= 64, let spilled = deeperMembers.popLast() { outerMembers |= (spilled ? 1 : 0) << 63 }
        }
        output.byte(bracket)
        output.flushIfFull()
    }

    /// What goes before a value or key: nothing after a key, else a comma when it is not the first.
    @inlinable mutating func separate() {
        if afterKey {
            afterKey = false
            return
        }
        guard level > 0 else { return }
        if hasMember { output.byte(UInt8(ascii: ",")) }
        hasMember = true
    }
}

extension Range<Int> {
    fileprivate func shifted(by offset: Int) -> Range<Int> { (lowerBound + offset)..<(upperBound + offset) }
}
