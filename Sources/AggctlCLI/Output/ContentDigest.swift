import Serialization
import Snapshots

/// A 128-bit digest of bytes (FNV-1a from two starting points): stable across runs and machines, for
/// serve's entity tags. Not a defence against anyone choosing the bytes: a tag that collides costs a
/// client a stale answer it asked to revalidate.
enum ContentDigest {
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

    /// The digest of `bytes`.
    static func of(_ bytes: [UInt8]) -> Value {
        bytes.withUnsafeBytes { bytes in
            Value(
                first: BinaryWriter.fnv1a(bytes, from: BinaryWriter.fnv1aOffset),
                second: BinaryWriter.fnv1a(bytes, from: 0x6a09_e667_f3bc_c908))
        }
    }
}
