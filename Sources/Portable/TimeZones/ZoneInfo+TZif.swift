/// Reading a TZif file (RFC 8536): versions 1 to 4, the 64-bit block of version 2 and later preferred.
extension ZoneInfo {
    /// Why bytes are not a TZif file this reader accepts.
    public struct FormatError: Error, Equatable, Sendable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    /// Parses a whole TZif file. Every count is checked against the bytes there before anything is read,
    /// transitions must ascend, type indices and offsets must be in range (RFC 8536 section 3): a damaged
    /// or hostile file is refused, never read past its end.
    public static func parse(_ bytes: [UInt8], identifier: String) throws(FormatError) -> ZoneInfo {
        var reader = TZifReader(bytes: bytes)
        let first = try reader.header()
        guard first.version >= 2 else {
            let block = try reader.block(first, timeSize: 4)
            return make(identifier, block, footer: nil)
        }
        try reader.skip(first.blockSize(timeSize: 4))
        let second = try reader.header()
        let block = try reader.block(second, timeSize: 8)
        return make(identifier, block, footer: try reader.footer())
    }

    private static func make(_ identifier: String, _ block: TZifReader.Block, footer: PosixZoneRule?) -> ZoneInfo {
        ZoneInfo(
            identifier: identifier, transitions: block.transitions, transitionTypes: block.types,
            offsets: block.offsets, footer: footer)
    }
}

/// A cursor over a TZif file's bytes; every read is bounds-checked.
private struct TZifReader {
    let bytes: [UInt8]
    var index = 0

    struct Header {
        var version: Int
        var isUTCCount, isStandardCount, leapCount, timeCount, typeCount, characterCount: Int

        func blockSize(timeSize: Int) -> Int {
            timeCount * timeSize + timeCount + typeCount * 6 + characterCount + leapCount * (timeSize + 4)
                + isStandardCount + isUTCCount
        }
    }

    struct Block {
        var transitions: [Int64]
        var types: [UInt8]
        var offsets: [Int32]
    }

    static func failure(_ reason: String) -> ZoneInfo.FormatError { ZoneInfo.FormatError(reason: reason) }

    mutating func header() throws(ZoneInfo.FormatError) -> Header {
        guard bytes.count - index >= 44 else { throw Self.failure("shorter than a TZif header") }
        guard bytes[index..<index + 4].elementsEqual("TZif".utf8) else { throw Self.failure("not a TZif file") }
        let versionByte = bytes[index + 4]
        let version: Int
        switch versionByte {
        case 0: version = 1
        case UInt8(ascii: "2")...UInt8(ascii: "9"): version = Int(versionByte - UInt8(ascii: "0"))
        default: throw Self.failure("an unknown TZif version")
        }
        index += 20
        var counts: [Int] = []
        for _ in 0..<6 {
            let value =
                UInt32(bytes[index]) << 24 | UInt32(bytes[index + 1]) << 16 | UInt32(bytes[index + 2]) << 8
                | UInt32(bytes[index + 3])
            // Each count is bounded by what the file can hold; over a million is no zone.
            guard value <= 1_000_000 else { throw Self.failure("a count past any real zone's") }
            counts.append(Int(value))
            index += 4
        }
        let header = Header(
            version: version, isUTCCount: counts[0], isStandardCount: counts[1], leapCount: counts[2],
            timeCount: counts[3], typeCount: counts[4], characterCount: counts[5])
        guard header.typeCount >= 1, header.characterCount >= 1 else { throw Self.failure("no local time type") }
        guard header.isUTCCount == 0 || header.isUTCCount == header.typeCount,
            header.isStandardCount == 0 || header.isStandardCount == header.typeCount
        else { throw Self.failure("indicator counts that do not match the types") }
        return header
    }

    mutating func skip(_ count: Int) throws(ZoneInfo.FormatError) {
        guard bytes.count - index >= count else { throw Self.failure("cut short") }
        index += count
    }

    mutating func block(_ header: Header, timeSize: Int) throws(ZoneInfo.FormatError) -> Block {
        guard bytes.count - index >= header.blockSize(timeSize: timeSize) else { throw Self.failure("cut short") }
        var transitions: [Int64] = []
        transitions.reserveCapacity(header.timeCount)
        for _ in 0..<header.timeCount {
            let time = signed(timeSize)
            if let last = transitions.last, time <= last { throw Self.failure("transitions out of order") }
            transitions.append(time)
        }
        let types = Array(bytes[index..<index + header.timeCount])
        index += header.timeCount
        guard types.allSatisfy({ Int($0) < header.typeCount }) else { throw Self.failure("a type index out of range") }
        var offsets: [Int32] = []
        for _ in 0..<header.typeCount {
            let offset = Int32(truncatingIfNeeded: signed(4))
            // RFC 8536: -25:59:59 to 25:59:59, never -2^31.
            guard (-93_599...93_599).contains(offset) else { throw Self.failure("an offset out of range") }
            offsets.append(offset)
            let designation = Int(bytes[index + 1])
            guard designation < header.characterCount else { throw Self.failure("a designation out of range") }
            index += 2
        }
        index +=
            header.characterCount + header.leapCount * (timeSize + 4) + header.isStandardCount
            + header.isUTCCount
        return Block(transitions: transitions, types: types, offsets: offsets)
    }

    /// The footer's POSIX rule (between two newlines); nil when empty. A footer that is there but not
    /// understood refuses the file: times after the last transition would be wrong.
    mutating func footer() throws(ZoneInfo.FormatError) -> PosixZoneRule? {
        guard index < bytes.count, bytes[index] == 0x0A else { throw Self.failure("no footer") }
        let start = index + 1
        guard let end = bytes[start...].firstIndex(of: 0x0A) else { throw Self.failure("an unterminated footer") }
        guard end > start else { return nil }
        guard end - start <= 256, let rule = PosixZoneRule.parse(String(decoding: bytes[start..<end], as: UTF8.self))
        else { throw Self.failure("a footer that is no POSIX TZ rule") }
        return rule
    }

    /// A big-endian signed integer of `size` bytes (4 or 8), bounds already checked.
    mutating func signed(_ size: Int) -> Int64 {
        var value: UInt64 = 0
        for offset in 0..<size { value = value << 8 | UInt64(bytes[index + offset]) }
        index += size
        return size == 8 ? Int64(bitPattern: value) : Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: value)))
    }
}
