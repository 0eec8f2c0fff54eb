#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Orders text by its UTF-8 bytes: the same order on every machine and locale, which a merge's
/// tie-breaks and a report's sorting need. `memcmp` over the bytes in place, because the generic
/// `utf8.lexicographicallyPrecedes` cost more than reading the records it sorted.
public enum ByteOrder {
    public static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        compare(lhs, rhs) < 0
    }

    /// Negative, zero or positive as `lhs` sorts before, equal to or after `rhs`.
    public static func compare(_ lhs: String, _ rhs: String) -> Int {
        let inPlace = lhs.utf8.withContiguousStorageIfAvailable { l in
            rhs.utf8.withContiguousStorageIfAvailable { r in compare(l, r) }
        }
        if let inPlace, let result = inPlace { return result }
        return Array(lhs.utf8).withUnsafeBufferPointer { l in
            Array(rhs.utf8).withUnsafeBufferPointer { r in compare(l, r) }
        }
    }

    private static func compare(_ l: UnsafeBufferPointer<UInt8>, _ r: UnsafeBufferPointer<UInt8>) -> Int {
        compare(UnsafeRawBufferPointer(l), UnsafeRawBufferPointer(r))
    }

    /// `compare` of bytes in memory (names read from a file, before any String is made).
    public static func compare(_ l: UnsafeRawBufferPointer, _ r: UnsafeRawBufferPointer) -> Int {
        let common = min(l.count, r.count)
        if common > 0 {
            let result = memcmp(l.baseAddress!, r.baseAddress!, common)
            if result != 0 { return Int(result) }
        }
        return l.count - r.count
    }

    /// The indices of `texts` in byte order of the texts: compared by their first sixteen bytes as two
    /// numbers, and in full only when those are equal. Sorting a thousand file names by full comparison
    /// (two string views and a `memcmp` each time) was a twentieth of a warm run; by their first eight
    /// bytes it still fell back for most pairs, the names of a store sharing their first eight
    /// (`dev-0000...`).
    /// Texts of at most sixteen bytes (provider names) are told apart by their keys and lengths alone:
    /// with equal keys, the shorter is a prefix of the longer (the keys' zero padding stands where the
    /// longer has NULs), so no pair of them is compared in full.
    public static func sortedIndices(_ texts: [String]) -> [Int] {
        let keys = texts.map { (words: prefixKeys($0), length: $0.utf8.count) }
        return texts.indices.sorted { a, b in
            let l = keys[a]
            let r = keys[b]
            if l.words != r.words { return l.words < r.words }
            if l.length <= 16 && r.length <= 16 { return l.length < r.length }
            return compare(texts[a], texts[b]) < 0
        }
    }

    /// The first sixteen bytes of `text` as two big-endian numbers, zero-padded: two texts whose keys
    /// differ are in the order of their keys; only equal keys need the full comparison.
    public static func prefixKeys(_ text: String) -> (UInt64, UInt64) {
        var words: (UInt64, UInt64) = (0, 0)
        var text = text
        text.withUTF8 { bytes in
            withUnsafeMutableBytes(of: &words) { words in
                words.copyMemory(from: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.prefix(16))))
            }
        }
        return (UInt64(bigEndian: words.0), UInt64(bigEndian: words.1))
    }

    /// `texts` in byte order, for texts that share long beginnings (paths below one folder), where the
    /// first sixteen bytes tell nothing: their bytes copied once into one buffer, and positions sorted by
    /// comparing there. Sorting 2000 log paths with `precedes` retained and released both strings at
    /// every comparison, slower even than `String`'s own sort, which was a quarter of a Codex publish
    /// with nothing new.
    public static func sorted(_ texts: [String]) -> [String] {
        order(of: texts).map { texts[$0] }
    }

    /// The indices of `texts` in the order `sorted(_:)` puts them in.
    public static func order(of texts: [String]) -> [Int] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(texts.reduce(0) { $0 + $1.utf8.count })
        var starts = [0]
        starts.reserveCapacity(texts.count + 1)
        for text in texts {
            bytes.append(contentsOf: text.utf8)
            starts.append(bytes.count)
        }
        var order = Array(texts.indices)
        bytes.withUnsafeBufferPointer { bytes in
            starts.withUnsafeBufferPointer { starts in
                order.sort { a, b in
                    let lengthA = starts[a + 1] - starts[a]
                    let lengthB = starts[b + 1] - starts[b]
                    let common = min(lengthA, lengthB)
                    let result =
                        common == 0 ? 0 : memcmp(bytes.baseAddress! + starts[a], bytes.baseAddress! + starts[b], common)
                    return result != 0 ? result < 0 : lengthA < lengthB
                }
            }
        }
        return order
    }
}
