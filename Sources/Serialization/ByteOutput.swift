import Portable

/// Where a stream of bytes goes as it is made: standard output or a file (AggctlCLI's `TextSink`).
public protocol ByteSink: AnyObject {
    func write(bytes: UnsafeRawBufferPointer)
}

/// A growable byte buffer: one `memcpy` per piece instead of `Array.append`'s generic path. With a sink
/// it is written out whenever a container closes past `streamingPiece` bytes, so it stays small and hot
/// in the cache instead of growing to the whole report.
public final class ByteOutput {
    public static let streamingPiece = 256 * 1024

    // Reached from writers inlined into other modules: the JSON writer's every key and value come here.
    // Unchecked: a class's stored property touched from another module is checked for overlapping
    // access at run time on every touch (a sixth of a cold `status --json`), and no access here
    // overlaps another (no callback runs while one is open).
    @exclusivity(unchecked) @usableFromInline var start: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) @usableFromInline var count = 0
    @exclusivity(unchecked) @usableFromInline var capacity: Int
    @usableFromInline let sink: (any ByteSink)?
    /// Bytes already sent to the sink.
    @exclusivity(unchecked) @usableFromInline var sent = 0

    public init(capacity: Int, sink: (any ByteSink)?) {
        self.capacity = max(capacity, 64)
        self.sink = sink
        start = .allocate(capacity: self.capacity)
    }

    deinit {
        start.deallocate()
    }

    public var text: String { String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self) }

    /// How many bytes were written in all, sent or held.
    @inlinable public var position: Int { sent + count }

    public func withBytes(_ body: (UnsafeRawBufferPointer) -> Void) {
        body(UnsafeRawBufferPointer(start: start, count: count))
    }

    public var byteCount: Int { count }

    /// Appends `bytes`; a streaming output sends a large block straight on instead of copying it.
    public func pass(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        if let sink, bytes.count >= ByteOutput.streamingPiece {
            flush()
            sink.write(bytes: bytes)
            sent += bytes.count
        } else {
            self.bytes(base.assumingMemoryBound(to: UInt8.self), bytes.count)
        }
    }

    /// Appends again the bytes written at `range` (counted as `position` counts), if they are still held
    /// here; false, and nothing written, when some of them were sent on already.
    public func repeatBytes(_ range: Range<Int>) -> Bool {
        guard range.lowerBound >= sent, range.upperBound <= position else { return false }
        reserve(range.count)  // first: growing moves the bytes
        (start + count).update(from: start + (range.lowerBound - sent), count: range.count)
        count += range.count
        return true
    }

    @inlinable public func flushIfFull() {
        if sink != nil && count >= ByteOutput.streamingPiece { flush() }
    }

    public func flush() {
        guard let sink, count > 0 else { return }
        sink.write(bytes: UnsafeRawBufferPointer(start: start, count: count))
        sent += count
        count = 0
    }

    @inlinable @inline(__always)
    func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: max(capacity * 2, count + extra))
        larger.update(from: start, count: count)
        start.deallocate()
        start = larger
        capacity = max(capacity * 2, count + extra)
    }

    @inlinable @inline(__always)
    public func byte(_ value: UInt8) {
        reserve(1)
        start[count] = value
        count += 1
    }

    @inlinable @inline(__always)
    public func bytes(_ source: UnsafePointer<UInt8>, _ length: Int) {
        reserve(length)
        (start + count).update(from: source, count: length)
        count += length
    }

    @inlinable @inline(__always)
    public func text(_ value: StaticString) {
        bytes(value.utf8Start, value.utf8CodeUnitCount)
    }

    /// `"name":`, room made once (a report writes tens of thousands of keys).
    @inlinable @inline(__always)
    public func key(_ name: StaticString) {
        let length = name.utf8CodeUnitCount
        reserve(length + 3)
        let at = start + count
        at[0] = UInt8(ascii: "\"")
        (at + 1).update(from: name.utf8Start, count: length)
        at[length + 1] = UInt8(ascii: "\"")
        at[length + 2] = UInt8(ascii: ":")
        count += length + 3
    }

    @inlinable @inline(__always) public func integer(_ value: Int) {
        reserve(21)
        whole(UInt64(value.magnitude), negative: value < 0)
    }

    /// `magnitude`'s digits, after a `-` when `negative`, into room already reserved (21 bytes): counted
    /// first, so that each digit goes straight to its place.
    @inlinable @inline(__always) func whole(_ magnitude: UInt64, negative: Bool) {
        var digits = 1
        var power: UInt64 = 10
        while digits < 20, magnitude >= power {
            digits += 1
            power &*= 10
        }
        let target = start + count
        var at = digits
        if negative {
            target[0] = UInt8(ascii: "-")
            at += 1
        }
        let end = at
        var rest = magnitude
        repeat {
            at -= 1
            target[at] = UInt8(truncatingIfNeeded: rest % 10) &+ 0x30
            rest /= 10
        } while rest > 0
        count += end
    }

    /// `value` rounded to hundredths, as Swift prints that `Double` (the shortest text that reads back
    /// the same): an integer without `.0`, else one or two decimals; a report's coordinates. Below 10^10
    /// hundredths the shortest text of a number of hundredths is that number's decimal, so the digits are
    /// written directly; `ReportPageTests` holds the two ways to the same bytes.
    public func number(_ value: Double) {
        let hundredths = (value * 100).rounded()
        guard hundredths.magnitude < 1e10 else {
            let rounded = hundredths / 100
            // Integers print without `.0` while an `Int` holds them; beyond, and NaN, as Swift prints them.
            if rounded.magnitude < 9e18, rounded == rounded.rounded() { return integer(Int(rounded)) }
            var text = String(rounded)
            return text.withUTF8 { bytes($0.baseAddress!, $0.count) }
        }
        reserve(24)
        let magnitude = UInt64(hundredths.magnitude)
        let fraction = Int(magnitude % 100)
        whole(magnitude / 100, negative: hundredths < 0)
        let target = start
        let end = count
        guard fraction != 0 else { return }
        target[end] = UInt8(ascii: ".")
        target[end + 1] = UInt8(truncatingIfNeeded: fraction / 10) &+ 0x30
        count += 2
        if fraction % 10 != 0 {
            target[end + 2] = UInt8(truncatingIfNeeded: fraction % 10) &+ 0x30
            count += 1
        }
    }

    public func date(_ value: Date) {
        reserve(RFC3339.maximumLength)
        count += RFC3339.write(value, into: start + count)
    }
}
