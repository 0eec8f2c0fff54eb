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
    /// The `keyID` an envelope names, as its bytes hold it (nil when it has none, or not as a plain
    /// string): what a reader without that key is told to find. Shown made safe by the caller.
    public static func keyID(in bytes: UnsafeRawBufferPointer) -> String? {
        guard let base = bytes.baseAddress, appears(in: bytes) else { return nil }
        let name: StaticString = "keyID"
        var cursor = JSONCursor(bytes)
        guard cursor.next(0x7B) else { return nil }
        while cursor.next(0x22) {
            guard let key = cursor.skipString(), cursor.next(0x3A) else { return nil }
            cursor.skipSpace()
            guard !cursor.atEnd else { return nil }
            let isKeyID =
                key.count == name.utf8CodeUnitCount && memcmp(base + key.lowerBound, name.utf8Start, key.count) == 0
            if bytes[cursor.index] == 0x22 {
                cursor.index += 1
                guard let value = cursor.skipString() else { return nil }
                if isKeyID {
                    let text = bytes[value]
                    return text.contains(0x5C) ? nil : String(decoding: text, as: UTF8.self)
                }
            } else {
                while !cursor.atEnd, bytes[cursor.index] != 0x2C, bytes[cursor.index] != 0x7D { cursor.index += 1 }
            }
            guard cursor.next(0x2C) else { return nil }
        }
        return nil
    }

    public static func appears(in bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let marker: StaticString = "aggctlEncrypted"
        var cursor = JSONCursor(bytes)
        guard cursor.next(0x7B) else { return false }
        while cursor.next(0x22) {
            guard let key = cursor.skipString(), cursor.next(0x3A) else { return false }
            if key.count == marker.utf8CodeUnitCount, memcmp(base + key.lowerBound, marker.utf8Start, key.count) == 0 {
                return true
            }
            cursor.skipSpace()
            guard !cursor.atEnd else { return false }
            if bytes[cursor.index] == 0x22 {
                cursor.index += 1
                guard cursor.skipString() != nil else { return false }
            } else {
                let start = cursor.index
                // A number: its digits, sign, point and exponent.
                while !cursor.atEnd {
                    let byte = bytes[cursor.index]
                    guard
                        (0x30...0x39).contains(byte) || byte == 0x2D || byte == 0x2B || byte == 0x2E
                            || byte | 0x20 == 0x65
                    else { break }
                    cursor.index += 1
                }
                guard cursor.index > start else { return false }
            }
            guard cursor.next(0x2C) else { return false }
        }
        return false
    }
}
