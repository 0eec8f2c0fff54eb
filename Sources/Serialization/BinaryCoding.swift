import Portable

/// Little-endian binary output into a growable buffer, with a checksum over what was written.
public struct BinaryWriter {
    public static let fnv1aOffset: UInt64 = 0xcbf2_9ce4_8422_2325
    public static let fnv1aPrime: UInt64 = 0x0000_0100_0000_01b3

    /// FNV-1a of `bytes`, going on from `hash`: the same on every run and machine (Swift's `Hasher` is
    /// seeded per process), for the names of cache files and the keys kept in them.
    ///
    /// Concrete overloads, not one over `some Sequence<UInt8>`: called from another module, a generic one
    /// is not specialized and walks the bytes through witness tables, about 50 ns a byte. That was a third
    /// of a Codex publish with nothing new, which hashes every log file's path.
    public static func fnv1a(_ bytes: UnsafeRawBufferPointer, from hash: UInt64 = fnv1aOffset) -> UInt64 {
        var hash = hash
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* fnv1aPrime }
        return hash
    }

    public static func fnv1a(_ bytes: [UInt8], from hash: UInt64 = fnv1aOffset) -> UInt64 {
        bytes.withUnsafeBytes { fnv1a($0, from: hash) }
    }

    public static func fnv1a(_ text: String.UTF8View, from hash: UInt64 = fnv1aOffset) -> UInt64 {
        var text = String(text)
        return text.withUTF8 { fnv1a(UnsafeRawBufferPointer($0), from: hash) }
    }

    private var storage: Storage

    public init(capacity: Int = 4096) {
        storage = Storage(capacity: capacity)
    }

    /// The buffer; a class so that copies of the writer share it (writers are used as values).
    private final class Storage {
        var start: UnsafeMutableRawPointer
        var count = 0
        var capacity: Int

        init(capacity: Int) {
            self.capacity = max(capacity, 64)
            start = .allocate(byteCount: self.capacity, alignment: 8)
        }

        deinit {
            start.deallocate()
        }

        /// The bytes as `Data`, handed over without a copy; the storage starts afresh.
        func relinquish() -> Data {
            let data = Data(
                bytesNoCopy: start, count: count, deallocator: .custom { pointer, _ in pointer.deallocate() })
            capacity = 64
            count = 0
            start = .allocate(byteCount: capacity, alignment: 8)
            return data
        }

        func reserve(_ extra: Int) {
            guard count + extra > capacity else { return }
            capacity = max(capacity * 2, count + extra)
            let larger = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
            larger.copyMemory(from: start, byteCount: count)
            start.deallocate()
            start = larger
        }
    }

    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage.start, count: storage.count) }
    /// How many bytes are written: where a value known only later goes (`setU64(_:at:)`).
    public var count: Int { storage.count }

    /// Writes `value` over the eight bytes at `offset`, written before as a placeholder: a length that
    /// is known once what it measures is written, without writing that apart and copying it.
    public mutating func setU64(_ value: UInt64, at offset: Int) {
        precondition(offset >= 0 && offset + 8 <= storage.count, "setU64 outside the written bytes")
        withUnsafeBytes(of: value.littleEndian) {
            (storage.start + offset).copyMemory(from: $0.baseAddress!, byteCount: 8)
        }
    }
    public var data: Data { Data(bytes) }
    public var checksum: UInt64 { BinaryWriter.checksum(bytes) }

    /// Four independent lanes of multiply-and-shift over 32-byte blocks: for spotting a damaged file (not
    /// an attacker) at memory speed, where a byte-at-a-time hash was a measurable part of a cold run.
    public static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        var lanes: (UInt64, UInt64, UInt64, UInt64) = (1, 2, 3, 4)
        @inline(__always) func mix(_ lane: UInt64, _ word: UInt64) -> UInt64 {
            let product = (lane ^ word) &* multiplier
            return product ^ (product >> 29)
        }
        var offset = 0
        while offset + 32 <= bytes.count {
            lanes.0 = mix(lanes.0, bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            lanes.1 = mix(lanes.1, bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
            lanes.2 = mix(lanes.2, bytes.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self))
            lanes.3 = mix(lanes.3, bytes.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self))
            offset += 32
        }
        while offset < bytes.count {
            lanes.0 = mix(lanes.0, UInt64(bytes[offset]))
            offset += 1
        }
        return mix(mix(mix(mix(UInt64(bytes.count), lanes.0), lanes.1), lanes.2), lanes.3)
    }

    private mutating func append(_ source: UnsafeRawPointer, _ count: Int) {
        storage.reserve(count)
        (storage.start + storage.count).copyMemory(from: source, byteCount: count)
        storage.count += count
    }

    public mutating func raw(_ values: UnsafeRawBufferPointer) {
        if let base = values.baseAddress { append(base, values.count) }
    }

    public mutating func raw(_ values: [UInt8]) { values.withUnsafeBytes { append($0.baseAddress!, $0.count) } }
    public mutating func u8(_ value: UInt8) { withUnsafeBytes(of: value) { append($0.baseAddress!, 1) } }
    public mutating func u32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { append($0.baseAddress!, 4) }
    }
    public mutating func u64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { append($0.baseAddress!, 8) }
    }
    public mutating func int(_ value: Int) { u64(UInt64(bitPattern: Int64(value))) }
    public mutating func double(_ value: Double) { u64(value.bitPattern) }
    public mutating func date(_ value: Date) { double(value.timeIntervalSinceReferenceDate) }

    public mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            u32(UInt32(utf8.count))
            if let base = utf8.baseAddress { append(base, utf8.count) }
        }
    }

    // Non-generic forms of `optional` for the common cases: generic closures are not inlined across
    // modules, and the merge memo is written from another one.
    public mutating func optionalString(_ value: String?) {
        u8(value == nil ? 0 : 1)
        if let value { string(value) }
    }

    public mutating func optionalInt(_ value: Int?) {
        u8(value == nil ? 0 : 1)
        if let value { int(value) }
    }

    public mutating func optionalDouble(_ value: Double?) {
        u8(value == nil ? 0 : 1)
        if let value { double(value) }
    }

    public mutating func optionalDate(_ value: Date?) {
        u8(value == nil ? 0 : 1)
        if let value { date(value) }
    }

    public mutating func optional<Value>(_ value: Value?, _ write: (inout BinaryWriter, Value) -> Void) {
        if let value {
            u8(1)
            write(&self, value)
        } else {
            u8(0)
        }
    }
}

/// Reads what `BinaryWriter` wrote; every read is bounds-checked and throws on a short or bad file.
extension BinaryWriter {
    /// Opens a file in aggctl's binary form: what it is, its layout, and the reader that wrote it (a
    /// file from another version is read as absent, never misread).
    public mutating func header(magic: [UInt8], format: UInt32, readerVersion: String) {
        raw(magic)
        u32(format)
        string(readerVersion)
    }

    /// The bytes, closed with the checksum of everything before it. Hands the buffer over (a cache file
    /// of a megabyte is not copied on its way to the disk): the writer is empty afterwards.
    public mutating func sealed() -> Data {
        u64(checksum)
        return storage.relinquish()
    }
}

extension BinaryReader {
    /// Reads a file written with `header` and `sealed`: the checksum first (nothing is trusted from a file
    /// that does not add up), then the header, then `body`, which must read to the very end.
    public static func unseal<Value>(
        _ data: Data, magic: [UInt8], format: UInt32, readerVersion: String,
        _ body: (inout BinaryReader) throws -> Value
    ) throws -> Value {
        try data.withUnsafeBytes { buffer in
            try unseal(buffer, magic: magic, format: format, readerVersion: readerVersion, body)
        }
    }

    /// `unseal` over bytes in memory (a mapped file).
    public static func unseal<Value>(
        _ buffer: UnsafeRawBufferPointer, magic: [UInt8], format: UInt32, readerVersion: String,
        _ body: (inout BinaryReader) throws -> Value
    ) throws -> Value {
        guard hasIntactChecksum(buffer) else { throw Corrupt() }
        return try readBeforeChecking(buffer, magic: magic, format: format, readerVersion: readerVersion, body)
    }

    /// Whether the last eight bytes of `buffer` are the checksum of the rest (what `sealed` wrote).
    public static func hasIntactChecksum(_ buffer: UnsafeRawBufferPointer) -> Bool {
        guard buffer.count >= 16 else { return false }
        var tail = BinaryReader(UnsafeRawBufferPointer(rebasing: buffer[(buffer.count - 8)...]))
        return (try? tail.u64())
            == BinaryWriter.checksum(UnsafeRawBufferPointer(rebasing: buffer[0..<(buffer.count - 8)]))
    }

    /// Reads a sealed file's header and content without its checksum checked: for a reader that checks
    /// the checksum alongside another pass over the file, and uses nothing it read before both agree.
    /// Every read is bounds-checked, so damaged bytes only make it throw.
    public static func readBeforeChecking<Value>(
        _ buffer: UnsafeRawBufferPointer, magic: [UInt8], format: UInt32, readerVersion: String,
        _ body: (inout BinaryReader) throws -> Value
    ) throws -> Value {
        var input = try content(of: buffer, magic: magic, format: format, readerVersion: readerVersion)
        let value = try body(&input)
        guard input.isAtEnd else { throw Corrupt() }
        return value
    }

    /// Reads the start of a sealed file's content, checksum unchecked and the rest unread: to turn away
    /// cheaply a file kept for another state of the store (a memo of another listing). What `body`
    /// reads may be damaged, so it may only reject a file, never accept one.
    public static func peek<Value>(
        _ buffer: UnsafeRawBufferPointer, magic: [UInt8], format: UInt32, readerVersion: String,
        _ body: (inout BinaryReader) throws -> Value
    ) throws -> Value {
        var input = try content(of: buffer, magic: magic, format: format, readerVersion: readerVersion)
        return try body(&input)
    }

    /// A reader of a sealed file's content, after its header (which must be this reader's): the checksum
    /// is neither read nor checked.
    private static func content(
        of buffer: UnsafeRawBufferPointer, magic: [UInt8], format: UInt32, readerVersion: String
    ) throws -> BinaryReader {
        guard buffer.count >= 16 else { throw Corrupt() }
        var input = BinaryReader(UnsafeRawBufferPointer(rebasing: buffer[0..<(buffer.count - 8)]))
        guard try input.raw(magic.count) == magic, try input.u32() == format,
            try input.string() == readerVersion
        else { throw Corrupt() }
        return input
    }
}

public struct BinaryReader {
    public struct Corrupt: Error {
        public init() {}
    }

    private let buffer: UnsafeRawBufferPointer
    private var offset = 0

    public init(_ buffer: UnsafeRawBufferPointer) {
        self.buffer = buffer
    }

    public var isAtEnd: Bool { offset == buffer.count }
    /// How far into its bytes the reader is.
    public var position: Int { offset }

    /// The next `count` bytes, for a nested reader.
    public mutating func take(_ count: Int) throws -> UnsafeRawBufferPointer {
        guard count >= 0, count <= buffer.count - offset else { throw Corrupt() }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + count)])
    }

    public mutating func raw(_ count: Int) throws -> [UInt8] { Array(try take(count)) }
    public mutating func u8() throws -> UInt8 { try take(1)[0] }
    public mutating func u32() throws -> UInt32 { UInt32(littleEndian: try take(4).loadUnaligned(as: UInt32.self)) }
    public mutating func u64() throws -> UInt64 { UInt64(littleEndian: try take(8).loadUnaligned(as: UInt64.self)) }
    public mutating func int() throws -> Int { Int(Int64(bitPattern: try u64())) }

    /// How many elements follow, as `u32` wrote it; refused when the bytes left could not hold that many
    /// (each element takes a byte at least). A list is made at its full size before its first element is
    /// read, so a damaged or crafted count of four billion ran the process out of memory where a short
    /// read should have refused the file.
    public mutating func count() throws -> Int {
        let count = Int(try u32())
        guard count <= buffer.count - offset else { throw Corrupt() }
        return count
    }
    public mutating func double() throws -> Double { Double(bitPattern: try u64()) }

    /// `count` doubles written one after another by `double(_:)`, read in one pass: a call per value
    /// (a bounds check and a possible throw each) was most of reading a hundred thousand of them back.
    public mutating func doubles(_ count: Int) throws -> [Double] {
        let bytes = try records(count, size: 8)
        return (0..<count).map {
            Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self)))
        }
    }

    /// `count` records of `size` bytes each, for a caller that reads each in place (`take` of them all).
    public mutating func records(_ count: Int, size: Int) throws -> UnsafeRawBufferPointer {
        guard count >= 0, size > 0, count <= (buffer.count - offset) / size else { throw Corrupt() }
        return try take(count * size)
    }
    /// A moment from year 1 to 9999 (`Date.distantPast` and `distantFuture` included): the checksum only
    /// says the bytes are the ones written, and a moment of 10^300 seconds made a day's number trap.
    public mutating func date() throws -> Date {
        let seconds = try double()
        guard seconds >= -63_114_076_800, seconds <= 252_423_993_600 else { throw Corrupt() }
        return Date(timeIntervalSinceReferenceDate: seconds)
    }

    /// The file's checksum already vouches for its bytes; decoding repairs anything odd instead of
    /// validating every string a second time.
    public mutating func string() throws -> String {
        String(decoding: try take(Int(try u32())), as: UTF8.self)
    }

    public mutating func optionalString() throws -> String? { try present() ? try string() : nil }
    public mutating func optionalInt() throws -> Int? { try present() ? try int() : nil }
    public mutating func optionalDouble() throws -> Double? { try present() ? try double() : nil }
    public mutating func optionalDate() throws -> Date? { try present() ? try date() : nil }

    private mutating func present() throws -> Bool {
        switch try u8() {
        case 0: return false
        case 1: return true
        default: throw Corrupt()
        }
    }

    public mutating func optional<Value>(_ read: (inout BinaryReader) throws -> Value) throws -> Value? {
        switch try u8() {
        case 0: return nil
        case 1: return try read(&self)
        default: throw Corrupt()
        }
    }
}
