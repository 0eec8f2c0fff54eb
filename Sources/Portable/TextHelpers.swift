extension Unicode.Scalar {
    /// Foundation's `CharacterSet.whitespaces`: Unicode white space that does not end a line.
    public var isBlank: Bool { properties.isWhitespace && !isLineBreak }

    /// Foundation's newlines: U+000A to U+000D, NEL, LINE and PARAGRAPH SEPARATOR.
    public var isLineBreak: Bool {
        (0x0A...0x0D).contains(value) || value == 0x85 || value == 0x2028 || value == 0x2029
    }
}

extension Substring {
    /// Without the leading and trailing scalars that `drop` says so of (Foundation's
    /// `trimmingCharacters(in:)`, which works on scalars too). On the concrete view, not on
    /// `StringProtocol`: unspecialized, the generic form looked up the scalar view's conformances at
    /// run time on its first call (a scan of every conformance in the binary, on every command).
    public func trimming(where drop: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !drop($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !drop($0) })!
        return String(scalars[first...last])
    }

    /// Without leading and trailing spaces and tabs (Unicode white space that does not end a line).
    public func trimmingBlanks() -> String { trimming(where: \.isBlank) }

    /// Without leading and trailing white space, line breaks included.
    public func trimmingWhitespace() -> String { trimming(where: \.properties.isWhitespace) }

    /// Without the leading and trailing characters in `set` (single scalars).
    public func trimming(charactersIn set: String) -> String {
        let scalars = Set(set.unicodeScalars)
        return trimming(where: { scalars.contains($0) })
    }
}

extension String {
    /// `Substring.trimming(where:)` of the whole string.
    public func trimming(where drop: (Unicode.Scalar) -> Bool) -> String { self[...].trimming(where: drop) }

    /// Without leading and trailing spaces and tabs (Unicode white space that does not end a line).
    public func trimmingBlanks() -> String { self[...].trimmingBlanks() }

    /// Without leading and trailing white space, line breaks included.
    public func trimmingWhitespace() -> String { self[...].trimmingWhitespace() }

    /// Without the leading and trailing characters in `set` (single scalars).
    public func trimming(charactersIn set: String) -> String { self[...].trimming(charactersIn: set) }
}

extension StringProtocol {
    /// The first range of `text`, ASCII letters compared without case (the markers aggctl looks for in
    /// agents' messages are English words).
    public func firstRange(ofCaseInsensitive text: some StringProtocol) -> Range<Index>? {
        let needle = Array(text.utf8).map(Self.asciiLowercased)
        guard !needle.isEmpty else { return startIndex..<startIndex }
        let haystack = utf8
        var start = haystack.startIndex
        while start != haystack.endIndex {
            var position = start
            var matched = 0
            while matched < needle.count, position != haystack.endIndex,
                Self.asciiLowercased(haystack[position]) == needle[matched]
            {
                matched += 1
                position = haystack.index(after: position)
            }
            if matched == needle.count { return start..<position }
            start = haystack.index(after: start)
        }
        return nil
    }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    /// Padded with spaces to `length` characters, or cut to it (Foundation's
    /// `padding(toLength:withPad: " ", startingAt: 0)`).
    public func padded(to length: Int) -> String {
        count >= length ? String(prefix(length)) : String(self) + String(repeating: " ", count: length - count)
    }
}

extension BidirectionalCollection<UInt8> {
    /// Without leading and trailing ASCII white space (space, tab, CR, LF): for protocol text read as
    /// bytes (header lines, XML text, hrefs, ETags), where Unicode-aware trimming costs more than the rest.
    /// Inlinable, so that it is specialized where it is used: called generically across the module, it
    /// looked its collection's types up at run time on every call (a twentieth of reading a listing).
    @inlinable
    public func trimmingASCIIWhitespace() -> SubSequence {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        guard let first = firstIndex(where: { !isSpace($0) }) else { return self[endIndex...] }
        return self[first...lastIndex(where: { !isSpace($0) })!]
    }
}

extension Double {
    /// A finite figure as exports and event lines write it: whole numbers without a fraction (`62`, not
    /// `62.0`), others in Swift's shortest round-tripping form (`37.5`).
    public var plainText: String {
        self == rounded() && abs(self) < 1e15 ? String(Int64(self)) : String(self)
    }
}

extension String {
    /// `format` filled by C's `vsnprintf` (Foundation's `String(format:)` for the numeric formats aggctl
    /// uses: `%.1f`, `%.2f`), so rounding is printf's.
    public init(cFormat format: String, _ arguments: CVarArg...) {
        // The text up to the terminating NUL vsnprintf writes.
        func text(_ buffer: [CChar]) -> String {
            String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        self = withVaList(arguments) { list in
            var buffer = [CChar](repeating: 0, count: 64)
            let needed = Int(vsnprintf(&buffer, buffer.count, format, list))
            guard needed >= buffer.count else { return text(buffer) }
            buffer = [CChar](repeating: 0, count: needed + 1)
            return withVaList(arguments) { again in
                _ = vsnprintf(&buffer, buffer.count, format, again)
                return text(buffer)
            }
        }
    }
}
