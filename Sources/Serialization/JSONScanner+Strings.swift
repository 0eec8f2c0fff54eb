import Portable

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Strings: read in place, validated (escapes, UTF-8) as they are passed; made into text only when asked.
extension JSONScanner {
    /// Whether `key` is exactly `name` (keys are compared as bytes, escapes decoded when present).
    public func key(_ key: RawString, is name: StaticString) -> Bool {
        let length = name.utf8CodeUnitCount
        if !key.hasEscapes {
            return key.end - key.start == length && memcmp(base + key.start, name.utf8Start, length) == 0
        }
        let decoded = unescaped(key)
        return decoded.count == length
            && decoded.withUnsafeBufferPointer { memcmp($0.baseAddress!, name.utf8Start, length) == 0 }
    }

    /// Reads a string token (the cursor on its opening quote), validating escapes and UTF-8.
    public mutating func readRawString() throws(JSONSyntaxError) -> RawString {
        guard peek() == UInt8(ascii: "\"") else { throw error }
        index += 1
        let start = index
        var hasEscapes = false
        while true {
            // Plain ASCII runs are the common case: eight bytes per step, stopping at the first byte that
            // needs a look (quote, backslash, control character, or the start of a multi-byte character).
            // That byte is classified at once; only the last few bytes of a buffer go one at a time.
            while index + 8 <= count {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                let mask = ByteWords.stopsInJSONString(word)
                if mask != 0 {
                    index += mask.trailingZeroBitCount >> 3
                    break
                }
                index += 8
            }
            guard index < count else { throw error }
            let byte = base[index]
            if byte == UInt8(ascii: "\"") {
                let raw = RawString(start: start, end: index, hasEscapes: hasEscapes)
                index += 1
                return raw
            } else if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                try skipEscape()
            } else if byte < 0x20 {
                throw error
            } else if byte >= 0x80 {
                try skipUTF8Sequence()
            } else {
                index += 1  // a plain byte in the tail, where fewer than eight remain
            }
        }
    }

    private mutating func skipEscape() throws(JSONSyntaxError) {
        index += 1
        guard index < count else { throw error }
        switch base[index] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            index += 1
        case UInt8(ascii: "u"):
            index += 1
            let unit = try readHex4()
            if (0xD800...0xDBFF).contains(unit) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard index + 1 < count, base[index] == UInt8(ascii: "\\"), base[index + 1] == UInt8(ascii: "u")
                else { throw error }
                index += 2
                guard (0xDC00...0xDFFF).contains(try readHex4()) else { throw error }
            } else if (0xDC00...0xDFFF).contains(unit) {
                throw error
            }
        default:
            throw error
        }
    }

    private mutating func readHex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= count else { throw error }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = base[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// One multi-byte UTF-8 sequence: no overlong forms, no surrogates, nothing above U+10FFFF.
    private mutating func skipUTF8Sequence() throws(JSONSyntaxError) {
        let lead = base[index]
        func continuation(_ offset: Int) -> Bool {
            index + offset < count && base[index + offset] & 0xC0 == 0x80
        }
        switch lead {
        case 0xC2...0xDF:
            guard continuation(1) else { throw error }
            index += 2
        case 0xE0...0xEF:
            guard continuation(1), continuation(2) else { throw error }
            let second = base[index + 1]
            if lead == 0xE0 && second < 0xA0 { throw error }  // overlong
            if lead == 0xED && second > 0x9F { throw error }  // surrogate
            index += 3
        case 0xF0...0xF4:
            guard continuation(1), continuation(2), continuation(3) else { throw error }
            let second = base[index + 1]
            if lead == 0xF0 && second < 0x90 { throw error }  // overlong
            if lead == 0xF4 && second > 0x8F { throw error }  // above U+10FFFF
            index += 4
        default:
            throw error
        }
    }

    /// The content of a validated string token.
    public func string(_ raw: RawString) -> String {
        if !raw.hasEscapes {
            return String(
                decoding: UnsafeBufferPointer(start: base + raw.start, count: raw.end - raw.start), as: UTF8.self)
        }
        return String(decoding: unescaped(raw), as: UTF8.self)
    }

    /// The bytes of a validated string token with escapes decoded.
    public func unescaped(_ raw: RawString) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(raw.end - raw.start)
        var i = raw.start
        func hex4(_ at: Int) -> UInt32 {
            var value: UInt32 = 0
            for k in 0..<4 {
                let byte = base[at + k]
                let digit: UInt32 =
                    byte <= UInt8(ascii: "9")
                    ? UInt32(byte - UInt8(ascii: "0")) : UInt32((byte | 0x20) - UInt8(ascii: "a") + 10)
                value = value << 4 | digit
            }
            return value
        }
        while i < raw.end {
            let byte = base[i]
            guard byte == UInt8(ascii: "\\") else {
                out.append(byte)
                i += 1
                continue
            }
            let escape = base[i + 1]
            i += 2
            switch escape {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex4(i)
                i += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    let low = hex4(i + 2)
                    i += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                out.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
            default: out.append(escape)  // " \ /
            }
        }
        return out
    }
}
