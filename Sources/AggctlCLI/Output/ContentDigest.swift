import Snapshots

/// A 128-bit digest of content fed in order (FNV-1a from two starting points): stable across runs and
/// machines, for what is kept under it (the report's pieces) and what it tags (serve's entity tags). Not
/// a defence against anyone choosing content: nothing here trusts it as one.
struct ContentDigest {
    struct Value: Hashable {
        var first: UInt64
        var second: UInt64

        /// 32 hex digits.
        var hex: String {
            func digits(_ word: UInt64) -> String {
                let text = String(word, radix: 16)
                return String(repeating: "0", count: 16 - text.count) + text
            }
            return digits(first) + digits(second)
        }
    }

    private var first = BinaryWriter.fnv1aOffset
    private var second: UInt64 = 0x6a09_e667_f3bc_c908

    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        first = BinaryWriter.fnv1a(bytes, from: first)
        second = BinaryWriter.fnv1a(bytes, from: second)
    }

    mutating func add(_ text: String) {
        first = BinaryWriter.fnv1a(text.utf8, from: first)
        second = BinaryWriter.fnv1a(text.utf8, from: second)
        add(UInt64(text.utf8.count))
    }

    mutating func add(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { add($0) }
    }

    mutating func add(_ values: [Double]) {
        add(UInt64(values.count))
        values.withUnsafeBytes { add($0) }
    }

    var value: Value { Value(first: first, second: second) }

    /// The digest of `bytes`.
    static func of(_ bytes: [UInt8]) -> Value {
        var digest = ContentDigest()
        bytes.withUnsafeBytes { digest.add($0) }
        return digest.value
    }
}
