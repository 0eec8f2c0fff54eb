#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A position in the bytes of a small, flat JSON object, for the two readers that must not take the record
/// reader's whole machinery: an envelope's members (`EnvelopeFields`) and the test whether bytes are an
/// envelope at all (`SealedRecordMark`). Spaces are JSON's four; strings end at their first unescaped quote.
public struct JSONCursor {
    public let bytes: UnsafeRawBufferPointer
    public var index = 0

    public init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    public var atEnd: Bool { index >= bytes.count }

    public mutating func skipSpace() {
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D else { return }
            index += 1
        }
    }

    /// Past spaces and `byte`, when `byte` comes next; false (and past the spaces only) when it does not.
    public mutating func next(_ byte: UInt8) -> Bool {
        skipSpace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Past a string whose opening quote was read, to its closing one (a quote after an odd number of
    /// backslashes is inside it); the range of its bytes, nil when it does not end.
    public mutating func skipString() -> Range<Int>? {
        guard let base = bytes.baseAddress else { return nil }
        let start = index
        while index < bytes.count {
            guard let quote = memchr(base + index, 0x22, bytes.count - index) else { return nil }
            let at = base.distance(to: UnsafeRawPointer(quote))
            var backslashes = 0
            while at - backslashes - 1 >= start, bytes[at - backslashes - 1] == 0x5C { backslashes += 1 }
            index = at + 1
            if backslashes % 2 == 0 { return start..<at }
        }
        return nil
    }
}
