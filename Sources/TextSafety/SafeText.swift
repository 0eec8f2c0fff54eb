/// The one place where text from outside (records, log lines, listings, file names, the environment) is
/// made safe for where it is going: a terminal, a notification, an HTTP header.
///
/// Everything a record or a server says is hostile until it has passed through here: an `ESC` can clear
/// a screen or set a window title, a line feed can forge a table row, a `<a href>` becomes a link in a
/// notification, a CR/LF in a token becomes an extra HTTP header.
public enum SafeText {
    /// `text` as one line a terminal shows as written: control characters (C0, DEL, C1), line and
    /// paragraph separators, and the bidirectional overrides that reorder what is shown are replaced by
    /// escapes (`\x1B`, `\n`, `\u{202E}`), so nothing is interpreted and the line stays one line.
    ///
    /// - Parameter limit: at most this many characters of the result are kept, then `...`.
    public static func line(_ text: String, limit: Int? = nil) -> String {
        var out: String
        // Checked on the bytes, ASCII a word at a time: a scalar at a time was a tenth of a large table.
        var bytes = text
        if bytes.withUTF8({ isTerminalSafe(UnsafeRawBufferPointer($0)) }) {
            out = text
        } else {
            out = ""
            out.reserveCapacity(text.utf8.count + 8)
            for scalar in text.unicodeScalars {
                guard needsEscape(scalar) else {
                    out.unicodeScalars.append(scalar)
                    continue
                }
                switch scalar {
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                default: out += escape(scalar)
                }
            }
        }
        // No more bytes than the limit is no more characters.
        if let limit, out.utf8.count > limit, out.count > limit { out = String(out.prefix(limit)) + "..." }
        return out
    }

    /// `text` as one safe line that also tells apart every two texts: controls escaped as `line` escapes
    /// them, and every backslash doubled, so that a real ESC (`\x1B`) and the four characters `\x1B`
    /// stay apart. For names that other programs key on (Prometheus label values), where `line` would
    /// make two accounts one; never cut.
    public static func reversible(_ text: String) -> String {
        var bytes = text
        if bytes.withUTF8({ isTerminalSafe(UnsafeRawBufferPointer($0)) }), !text.utf8.contains(UInt8(ascii: "\\")) {
            return text
        }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            if scalar == "\\" {
                out += "\\\\"
            } else if needsEscape(scalar) {
                out += escape(scalar)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `text` for a notification body that a server may render as markup (the freedesktop specification's
    /// subset of HTML): `&`, `<` and `>` as entities, so no tag or link survives.
    ///
    /// - Parameter quotes: also `"` and `'`, for text that may stand in an attribute's value (a page).
    public static func markup(_ text: String, quotes: Bool = false) -> String {
        // Byte by byte, not character by character: a combining mark after `"` makes one character that
        // is not `"`, and let the quote end an attribute. In UTF-8 these bytes are never part of another
        // character's bytes.
        func special(_ byte: UInt8) -> Bool {
            byte == 0x26 || byte == 0x3C || byte == 0x3E || (quotes && (byte == 0x22 || byte == 0x27))
        }
        // Most text has nothing to replace: one pass over its bytes tells.
        guard text.utf8.contains(where: special) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 16)
        for byte in text.utf8 {
            switch byte {
            case 0x26: out += "&amp;".utf8
            case 0x3C: out += "&lt;".utf8
            case 0x3E: out += "&gt;".utf8
            case 0x22 where quotes: out += "&quot;".utf8
            case 0x27 where quotes: out += "&#39;".utf8
            default: out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `text` may go into an HTTP header or a credential option as it is: no CR, LF or NUL, which
    /// would end the header and start another (or cut the value short).
    public static func isHeaderSafe(_ text: String) -> Bool {
        !text.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
    }

    /// Whether `text` holds anything `line` would escape.
    public static func hasControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains(where: needsEscape)
    }

    /// Whether UTF-8 `bytes` may reach a terminal as they are: valid UTF-8 holding nothing `line` would
    /// escape. For large documents aggctl wrote itself and reads back (a kept `status --json`), so ASCII
    /// goes sixteen bytes at a time (eight near the end).
    public static func isTerminalSafe(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        // Vector operands only: a scalar one makes each comparison a loop over the lanes.
        let space = SIMD16<Int8>(repeating: 0x20)
        let delete = SIMD16<Int8>(repeating: 0x7F)
        var index = 0
        while index < bytes.count {
            if index + 16 <= bytes.count {
                // As signed bytes, 0x80 and up are negative: one comparison finds them and the controls.
                let block = bytes.loadUnaligned(fromByteOffset: index, as: SIMD16<Int8>.self)
                let stops = unsafeBitCast((block .< space) .| (block .== delete), to: SIMD2<UInt64>.self)
                if stops[0] | stops[1] == 0 {
                    index += 16
                    continue
                }
            }
            if index + 8 <= bytes.count {
                let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                let delete = word ^ (ones &* 0x7F)
                // No byte at or above 0x80, below 0x20 or equal to 0x7F (a borrow starts only at a true one).
                if (word | ((word &- ones &* 0x20) & ~word) | ((delete &- ones) & ~delete)) & highs == 0 {
                    index += 8
                    continue
                }
            }
            let lead = bytes[index]
            if lead < 0x80 {
                if lead < 0x20 || lead == 0x7F { return false }
                index += 1
                continue
            }
            guard let (scalar, length) = scalar(in: bytes, at: index), !needsEscape(scalar) else { return false }
            index += length
        }
        return true
    }

    /// The scalar of the multi-byte UTF-8 sequence at `index` and its length; nil when it is not one
    /// (a stray continuation byte, a short or overlong sequence, a surrogate, past U+10FFFF).
    private static func scalar(in bytes: UnsafeRawBufferPointer, at index: Int) -> (Unicode.Scalar, Int)? {
        let lead = UInt32(bytes[index])
        let length: Int
        var value: UInt32
        switch lead {
        case 0xC2...0xDF: (length, value) = (2, lead & 0x1F)
        case 0xE0...0xEF: (length, value) = (3, lead & 0x0F)
        case 0xF0...0xF4: (length, value) = (4, lead & 0x07)
        default: return nil
        }
        guard index + length <= bytes.count else { return nil }
        for offset in 1..<length {
            let byte = UInt32(bytes[index + offset])
            guard byte & 0xC0 == 0x80 else { return nil }
            value = value << 6 | (byte & 0x3F)
        }
        let smallest: UInt32 = length == 3 ? 0x800 : length == 4 ? 0x10000 : 0x80
        guard value >= smallest, let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, length)
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        // Line and paragraph separators; bidirectional embeddings, overrides and isolates.
        case 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    private static func escape(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        if scalar.value <= 0xFF { return "\\x" + (hex.count == 1 ? "0" : "") + hex }
        return "\\u{" + hex + "}"
    }
}
