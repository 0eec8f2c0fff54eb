/// How many columns a terminal gives text, for lining up a table's columns: East Asian wide and
/// fullwidth characters and emoji take two, combining marks and format characters (a zero-width space,
/// a joiner) none, everything else one.
///
/// Counted a character (grapheme cluster) at a time, as terminals draw them: a flag, an emoji joined by
/// ZWJ or a letter with its accents is one picture, as wide as its widest part. Counting characters
/// alone put every column after a Japanese device name or an emoji plan name out of line.
public enum TerminalWidth {
    /// The columns `text` takes; for text already made one safe line (`SafeText.line`).
    public static func of(_ text: String) -> Int {
        var bytes = text
        if bytes.withUTF8({ $0.allSatisfy { $0 < 0x80 } }) { return text.utf8.count }
        var width = 0
        for character in text { width += of(character) }
        return width
    }

    /// The columns one character takes: 0, 1 or 2.
    public static func of(_ character: Character) -> Int {
        var widest = 0
        var pictograph = false
        var emojiStyle = false
        for scalar in character.unicodeScalars {
            let properties = scalar.properties
            if properties.isEmojiPresentation || isWide(scalar.value) { return 2 }
            // VARIATION SELECTOR-16 asks for an emoji picture of a character that is text by default (❤️).
            if scalar.value == 0xFE0F { emojiStyle = true }
            if properties.isEmoji && scalar.value >= 0x80 { pictograph = true }
            switch properties.generalCategory {
            case .nonspacingMark, .enclosingMark, .format: continue
            default: widest = 1
            }
        }
        return pictograph && emojiStyle ? 2 : widest
    }

    /// Unicode's East Asian Wide and Fullwidth blocks (emoji are found by their own property).
    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F,  // Hangul leading consonants
            0x2329...0x232A,  // angle brackets
            0x2E80...0x303E,  // CJK radicals, ideographic punctuation and space
            0x3041...0x33FF,  // kana, bopomofo, Hangul compatibility jamo, CJK compatibility
            0x3400...0x4DBF, 0x4E00...0x9FFF,  // CJK ideographs
            0xA000...0xA4CF,  // Yi
            0xA960...0xA97F, 0xAC00...0xD7A3,  // Hangul
            0xF900...0xFAFF,  // CJK compatibility ideographs
            0xFE10...0xFE19, 0xFE30...0xFE6F,  // vertical and small forms
            0xFF00...0xFF60, 0xFFE0...0xFFE6,  // fullwidth forms
            0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1B000...0x1B2FF,  // Tangut, Khitan, kana supplements
            0x1F200...0x1F2FF,  // enclosed ideographs
            0x20000...0x2FFFD, 0x30000...0x3FFFD:  // CJK ideographs, planes 2 and 3
            return true
        default:
            return false
        }
    }

    /// `text` cut to at most `columns` columns, `...` standing for what was cut; the text itself when it
    /// fits. For a field of a table or a one-line output: a record's 4 MB e-mail once made every row of
    /// `status` 12 million characters.
    public static func cut(_ text: String, to columns: Int) -> String {
        // Most fields are short ASCII: their bytes are their columns.
        if text.utf8.count <= columns { return text }
        guard of(text) > columns else { return text }
        var kept = ""
        var width = 0
        for character in text {
            let next = of(character)
            if width + next > columns - 3 { break }
            kept.append(character)
            width += next
        }
        return kept + "..."
    }
}
