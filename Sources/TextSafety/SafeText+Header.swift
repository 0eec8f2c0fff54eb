extension SafeText {
    /// `text` as the value of an HTTP header that people read (ntfy's `Title`): one safe line (`line`,
    /// at most `limit` characters), and when it is not plain ASCII, RFC 2047 encoded words
    /// (`=?UTF-8?B?...?=`, each at most 75 characters, cut between characters), which ntfy and mail
    /// readers decode. Nothing in the result can end the header or start another.
    public static func headerText(_ text: String, limit: Int = 200) -> String {
        let safe = line(text, limit: limit)
        guard !safe.unicodeScalars.allSatisfy({ $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F }) else {
            return safe
        }
        // 45 bytes of UTF-8 make 60 characters of base64: 72 with the markers, under RFC 2047's 75.
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in safe {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > 45, !chunk.isEmpty {
                words.append("=?UTF-8?B?" + base64(chunk) + "?=")
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append("=?UTF-8?B?" + base64(chunk) + "?=") }
        return words.joined(separator: " ")
    }

    /// Standard base64 with padding (RFC 4648, section 4).
    static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let a = UInt32(bytes[index])
            let b = index + 1 < bytes.count ? UInt32(bytes[index + 1]) : 0
            let c = index + 2 < bytes.count ? UInt32(bytes[index + 2]) : 0
            let group = a << 16 | b << 8 | c
            out.append(alphabet[Int(group >> 18 & 63)])
            out.append(alphabet[Int(group >> 12 & 63)])
            out.append(index + 1 < bytes.count ? alphabet[Int(group >> 6 & 63)] : UInt8(ascii: "="))
            out.append(index + 2 < bytes.count ? alphabet[Int(group & 63)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `text` for Slack's mrkdwn: `&`, `<` and `>` as entities (Slack's own rule), so a record cannot make
    /// a link or a `<!channel>` mention.
    public static func slackText(_ text: String) -> String {
        markup(text)
    }

    /// `text` for Discord's markdown: every character Discord formats with (`\ * _ ~ ` | > #` and `-` at
    /// a line's start among them) preceded by a backslash, so a record's text is shown as written. Mentions
    /// are turned off by the message itself (`allowed_mentions`).
    public static func discordText(_ text: String) -> String {
        var out = ""
        for character in text {
            if "\\*_~`|>#-[]()<:@".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }
}
