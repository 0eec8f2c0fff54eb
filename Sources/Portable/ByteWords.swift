/// Questions about eight bytes at once (a `UInt64` read little-endian): what the JSON scanner and the JSON
/// writer ask of every string they pass, kept in one place because the bit tricks are easy to get wrong.
public enum ByteWords {
    /// High bits set at (or, after a true hit, possibly above) each byte that is `"`, `\\`, below 0x20 or
    /// above 0x7F: where a JSON string must be looked at byte by byte. The lowest set bit marks the first
    /// such byte exactly; zero when there is none. Inlinable: both modules that ask it do so in their
    /// innermost loops.
    @inlinable @inline(__always)
    public static func stopsInJSONString(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let zeroInQuote = (quote &- ones) & ~quote
        let zeroInBackslash = (backslash &- ones) & ~backslash
        let control = (word &- ones &* 0x20) & ~word
        return (zeroInQuote | zeroInBackslash | control | word) & highs
    }
}
