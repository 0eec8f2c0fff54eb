#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether a stored record's bytes are a sealed record's envelope (the record format, "Sealed records"):
/// one place for the store's readers (a record read without keys) and the envelope's opener.
///
/// An envelope is an object of strings and numbers, one of them `aggctlEncrypted`, in any order (aggctl
/// writes it first; another writer need not). A record's members include an array (`providers`) and never
/// that one, so the object's members are walked, strings skipped whole, until `aggctlEncrypted` (an
/// envelope) or a value that is neither a string nor a number (a record): a record is judged within its
/// first few members, an envelope after a skip over its ciphertext.
public enum SealedRecordMark {
    public static func appears(in bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let marker: StaticString = "aggctlEncrypted"
        var index = 0
        func skipSpace() {
            while index < bytes.count {
                let byte = bytes[index]
                guard byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D else { return }
                index += 1
            }
        }
        func next(_ byte: UInt8) -> Bool {
            skipSpace()
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        /// Past a string whose opening quote was read; the range of its bytes, nil when it does not end.
        func skipString() -> Range<Int>? {
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
        guard next(0x7B) else { return false }
        while next(0x22) {
            guard let key = skipString(), next(0x3A) else { return false }
            if key.count == marker.utf8CodeUnitCount, memcmp(base + key.lowerBound, marker.utf8Start, key.count) == 0 {
                return true
            }
            skipSpace()
            guard index < bytes.count else { return false }
            if bytes[index] == 0x22 {
                index += 1
                guard skipString() != nil else { return false }
            } else {
                let start = index
                // A number: its digits, sign, point and exponent.
                while index < bytes.count {
                    let byte = bytes[index]
                    guard
                        (0x30...0x39).contains(byte) || byte == 0x2D || byte == 0x2B || byte == 0x2E
                            || byte | 0x20 == 0x65
                    else { break }
                    index += 1
                }
                guard index > start else { return false }
            }
            guard next(0x2C) else { return false }
        }
        return false
    }
}
