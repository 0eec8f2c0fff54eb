import Portable

/// The inside of a JSON string, as this writer escapes it: one job, asked of every text a report holds.
extension JSONWriter {
    /// Zero exactly when none of the eight bytes is below 0x20, `"`, `\`, DEL or from 0x80 up: where the
    /// scanner stops in a string (`ByteWords.stopsInJSONString`), and DEL, which this writer escapes.
    @inlinable @inline(__always)
    public static func needsLook(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let delete = word ^ (ones &* 0x7F)
        return ByteWords.stopsInJSONString(word) | ((delete &- ones) & ~delete & (ones &* 0x80))
    }

    /// Writes `utf8` as the inside of a JSON string. Besides what JSON requires, DEL, the C1 controls,
    /// the line and paragraph separators and the bidirectional overrides go as `\u` escapes: the same
    /// text for a program, and nothing a terminal would act on when a person looks at `--json` output.
    @usableFromInline static func escape(_ utf8: UnsafeBufferPointer<UInt8>, into output: ByteOutput) {
        var runStart = 0
        var index = 0
        while index < utf8.count {
            // Eight plain ASCII bytes at a time (most of every e-mail, name and id); a word holding
            // anything else is looked at byte by byte below.
            if index + 8 <= utf8.count {
                let word = UnsafeRawPointer(utf8.baseAddress! + index).loadUnaligned(as: UInt64.self)
                if Self.needsLook(UInt64(littleEndian: word)) == 0 {
                    index += 8
                    continue
                }
            }
            let byte = utf8[index]
            if byte >= 0xC2 {
                // Two- and three-byte sequences of U+0080...U+009F and U+2028...U+202E, U+2066...U+2069.
                if let scalar = Self.terminalControl(utf8, at: index) {
                    output.bytes(utf8.baseAddress! + runStart, index - runStart)
                    let hex: StaticString = "0123456789abcdef"
                    output.text("\\u")
                    for shift in stride(from: 12, through: 0, by: -4) {
                        output.byte(hex.utf8Start[Int((scalar.value >> UInt32(shift)) & 0xF)])
                    }
                    index += scalar.value < 0x800 ? 2 : 3
                    runStart = index
                    continue
                }
                index += 1
                continue
            }
            index += 1
            guard byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
                continue
            }
            output.bytes(utf8.baseAddress! + runStart, index - 1 - runStart)
            runStart = index
            switch byte {
            case UInt8(ascii: "\""): output.text("\\\"")
            case UInt8(ascii: "\\"): output.text("\\\\")
            case 0x0A: output.text("\\n")
            case 0x0D: output.text("\\r")
            case 0x09: output.text("\\t")
            default:
                let hex: StaticString = "0123456789abcdef"
                output.text("\\u00")
                output.byte(hex.utf8Start[Int(byte >> 4)])
                output.byte(hex.utf8Start[Int(byte & 0xF)])
            }
        }
        if utf8.count > runStart { output.bytes(utf8.baseAddress! + runStart, utf8.count - runStart) }
    }

    /// The C1 control or separator/bidi scalar whose UTF-8 starts at `index`, if it is one.
    private static func terminalControl(_ utf8: UnsafeBufferPointer<UInt8>, at index: Int) -> Unicode.Scalar? {
        let byte = utf8[index]
        if byte == 0xC2, index + 1 < utf8.count, (0x80...0x9F).contains(utf8[index + 1]) {
            return Unicode.Scalar(UInt32(utf8[index + 1]))
        }
        guard byte == 0xE2, index + 2 < utf8.count else { return nil }
        let second = utf8[index + 1]
        let third = utf8[index + 2]
        if second == 0x80, (0xA8...0xAE).contains(third) { return Unicode.Scalar(0x2000 + UInt32(third - 0x80)) }
        if second == 0x81, (0xA6...0xA9).contains(third) { return Unicode.Scalar(0x2040 + UInt32(third - 0x80)) }
        return nil
    }
}
