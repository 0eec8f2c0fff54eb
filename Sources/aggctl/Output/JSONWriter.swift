import Foundation
import Snapshots

/// Writes JSON for reports straight into bytes, two-space indented, keys in the order given.
///
/// Hand-written because `JSONEncoder` spent as long writing a 1000-device `status --json` as the fast
/// reader spent reading the store. Callers give keys in sorted order, so the output stays canonical.
/// Non-finite numbers (a sum that overflowed) are written as `null`, never as invalid JSON.
struct JSONWriter {
    private let output: ByteOutput
    /// Per open container: whether it has a member yet.
    private var hasMembers: [Bool] = []
    private var afterKey = false

    init(capacity: Int = 4096) {
        output = ByteOutput(capacity: capacity)
    }

    var text: String { output.text }

    /// The JSON and a final newline, written to `sink` without an intermediate String.
    func write(to sink: any TextSink) {
        output.byte(0x0A)
        output.withBytes { sink.write(bytes: $0) }
    }

    // MARK: Containers

    mutating func object(_ body: (inout JSONWriter) -> Void) {
        open(UInt8(ascii: "{"))
        body(&self)
        close(UInt8(ascii: "}"))
    }

    mutating func array<S: Sequence>(_ elements: S, _ body: (inout JSONWriter, S.Element) -> Void) {
        open(UInt8(ascii: "["))
        for element in elements { body(&self, element) }
        close(UInt8(ascii: "]"))
    }

    /// Starts the member `name`; the next value written is its value.
    mutating func key(_ name: StaticString) {
        separate()
        output.byte(UInt8(ascii: "\""))
        output.bytes(name.utf8Start, name.utf8CodeUnitCount)
        output.text("\" : ")
        afterKey = true
    }

    // MARK: Values

    mutating func null() {
        separate()
        output.text("null")
    }

    mutating func bool(_ value: Bool) {
        separate()
        output.text(value ? "true" : "false")
    }

    mutating func int(_ value: Int?) {
        guard let value else { return null() }
        separate()
        output.integer(value)
    }

    mutating func double(_ value: Double?) {
        guard let value, value.isFinite else { return null() }
        separate()
        // Whole numbers (most percentages) as integers; others in Swift's shortest round-tripping form.
        if value == value.rounded(), abs(value) < 1e15 {
            if value == 0 && value.sign == .minus { output.byte(UInt8(ascii: "-")) }
            output.integer(Int(value))
        } else {
            var text = value.description
            text.withUTF8 { output.bytes($0.baseAddress!, $0.count) }
        }
    }

    mutating func date(_ value: Date?) {
        guard let value else { return null() }
        separate()
        output.byte(UInt8(ascii: "\""))
        output.date(value)
        output.byte(UInt8(ascii: "\""))
    }

    mutating func string(_ value: String?) {
        guard var value else { return null() }
        separate()
        output.byte(UInt8(ascii: "\""))
        value.withUTF8 { utf8 in
            var runStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                output.bytes(utf8.baseAddress! + runStart, index - runStart)
                runStart = index + 1
                switch byte {
                case UInt8(ascii: "\""): output.text("\\\"")
                case UInt8(ascii: "\\"): output.text("\\\\")
                case 0x0A: output.text("\\n")
                case 0x0D: output.text("\\r")
                case 0x09: output.text("\\t")
                default:
                    let hex: StaticString = "0123456789abcdef"
                    output.text("\\u00")
                    output.byte(hex.utf8Start[Int(byte >> 4)])
                    output.byte(hex.utf8Start[Int(byte & 0xF)])
                }
            }
            if utf8.count > runStart { output.bytes(utf8.baseAddress! + runStart, utf8.count - runStart) }
        }
        output.byte(UInt8(ascii: "\""))
    }

    // MARK: Layout

    private mutating func open(_ bracket: UInt8) {
        separate()
        output.byte(bracket)
        hasMembers.append(false)
    }

    private mutating func close(_ bracket: UInt8) {
        let hadMembers = hasMembers.removeLast()
        if hadMembers { newline() }
        output.byte(bracket)
    }

    /// What goes before a value or key: nothing after a key, else a comma when needed and a new line.
    private mutating func separate() {
        if afterKey {
            afterKey = false
            return
        }
        guard !hasMembers.isEmpty else { return }
        if hasMembers[hasMembers.count - 1] { output.byte(UInt8(ascii: ",")) }
        hasMembers[hasMembers.count - 1] = true
        newline()
    }

    private mutating func newline() {
        output.byte(0x0A)
        output.spaces(2 * hasMembers.count)
    }
}

/// A growable byte buffer: one `memcpy` per piece instead of `Array.append`'s generic path.
private final class ByteOutput {
    private var start: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        start = .allocate(capacity: self.capacity)
    }

    deinit {
        start.deallocate()
    }

    var text: String { String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self) }

    func withBytes(_ body: (UnsafeRawBufferPointer) -> Void) {
        body(UnsafeRawBufferPointer(start: start, count: count))
    }

    @inline(__always)
    private func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: max(capacity * 2, count + extra))
        larger.update(from: start, count: count)
        start.deallocate()
        start = larger
        capacity = max(capacity * 2, count + extra)
    }

    @inline(__always)
    func byte(_ value: UInt8) {
        reserve(1)
        start[count] = value
        count += 1
    }

    @inline(__always)
    func bytes(_ source: UnsafePointer<UInt8>, _ length: Int) {
        reserve(length)
        (start + count).update(from: source, count: length)
        count += length
    }

    @inline(__always)
    func text(_ value: StaticString) {
        bytes(value.utf8Start, value.utf8CodeUnitCount)
    }

    func spaces(_ length: Int) {
        reserve(length)
        (start + count).update(repeating: 0x20, count: length)
        count += length
    }

    func integer(_ value: Int) {
        reserve(20)
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch, written backwards
        let written = withUnsafeMutableBytes(of: &digits) { scratch -> Int in
            var index = scratch.count
            repeat {
                index -= 1
                scratch[index] = UInt8(truncatingIfNeeded: magnitude % 10) &+ 0x30
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                index -= 1
                scratch[index] = UInt8(ascii: "-")
            }
            (start + count).update(
                from: scratch.baseAddress!.assumingMemoryBound(to: UInt8.self) + index, count: scratch.count - index)
            return scratch.count - index
        }
        count += written
    }

    func date(_ value: Date) {
        reserve(RFC3339.maximumLength)
        count += RFC3339.write(value, into: start + count)
    }
}
