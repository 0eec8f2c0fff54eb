import Portable
import Snapshots

/// A small, namespace-aware reader of the XML that servers answer with (WebDAV PROPFIND, S3 listings and errors), over bytes.
///
/// Why not Foundation's `XMLParser`: fuzzing found it trapping on hostile input (an element name that is
/// not UTF-8, a processing instruction without data), and a store's listing is text from a server we do
/// not trust. This reader does only what a `multistatus` needs and refuses the rest:
///
/// - elements with attributes, namespace declarations (`xmlns`, `xmlns:p`) scoped to their element, and
///   names resolved to (namespace URI, local name); an undeclared prefix is an error;
/// - text and CDATA, with the five predefined entities and character references; no other entity;
/// - the XML declaration, other processing instructions and comments, skipped;
/// - no DOCTYPE (no DTD, so no entity expansion of any kind), at most `maximumDepth` nested elements.
///
/// A document that stops before its root element ends is reported as cut short, not as an error of
/// syntax: a listing cut short by a proxy or a dying server is worth asking for again.
struct MinimalXMLReader {
    /// What the reader reports, in document order.
    protocol Handler {
        mutating func start(namespace: String?, name: String)
        mutating func end(namespace: String?, name: String)
        /// Text inside the current element (several calls may make up one text); only called while
        /// `wantsText` is true.
        mutating func text(_ text: String)
        var wantsText: Bool { get }
    }

    struct Failure: Error, Equatable {
        /// The 1-based line where reading stopped.
        var line: Int
        var reason: String
        /// The document ended before its root element did, or went on after it: a damaged answer, worth
        /// asking for again.
        var isCutShort: Bool
    }

    static let maximumDepth = 256

    private let bytes: [UInt8]
    private var position = 0

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Reads `bytes` (UTF-8) to the end, reporting to `handler`.
    static func read<H: Handler>(_ bytes: [UInt8], into handler: inout H) throws(Failure) {
        var reader = MinimalXMLReader(bytes)
        try reader.document(&handler)
    }

    private struct Open {
        var qualifiedName: ArraySlice<UInt8>
        var namespace: String?
        var name: String
        /// How many namespace bindings this element pushed.
        var bindings: Int
    }

    /// A namespace declaration in scope (a struct, not a tuple: the generic code around an array of
    /// tuples looked their type up at run time on every element, a twentieth of reading a listing).
    private struct Binding {
        var prefix: ArraySlice<UInt8>
        var uri: String
    }

    private mutating func document<H: Handler>(_ handler: inout H) throws(Failure) {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        var stack: [Open] = []
        var scopes: [Binding] = []
        var sawRoot = false
        while position < bytes.count {
            guard bytes[position] == UInt8(ascii: "<") else {
                let start = position
                while position < bytes.count && bytes[position] != UInt8(ascii: "<") { position += 1 }
                let segment = bytes[start..<position]
                if stack.isEmpty {
                    // After the root element: rclone, mid-replace, may append an error text to a listing.
                    // Such an answer is not trusted, but asking again usually gets a clean one.
                    guard segment.allSatisfy(Self.isSpace) else {
                        throw Failure(line: line(), reason: "text outside the root element", isCutShort: sawRoot)
                    }
                } else if handler.wantsText {
                    handler.text(try decodeText(segment))
                }
                continue
            }
            // The byte after "<" says what follows (most tags are start and end tags, which were tried
            // against four patterns first).
            switch position + 1 < bytes.count ? bytes[position + 1] : 0 {
            case UInt8(ascii: "?"):
                try skip(past: "?>", what: "a processing instruction")
            case UInt8(ascii: "!"):
                if matches("<!--") {
                    try skip(past: "-->", what: "a comment")
                } else if matches("<![CDATA[") {
                    guard !stack.isEmpty else { throw fail("CDATA outside the root element") }
                    position += 9
                    let start = position
                    try skip(past: "]]>", what: "a CDATA section")
                    if handler.wantsText {
                        handler.text(String(decoding: bytes[start..<(position - 3)], as: UTF8.self))
                    }
                } else {
                    throw fail("a DOCTYPE or declaration, which listings never need")
                }
            case UInt8(ascii: "/"):
                position += 2
                let name = try readName()
                skipSpace()
                guard position < bytes.count else { throw cutShort() }
                guard bytes[position] == UInt8(ascii: ">") else { throw fail("a malformed end tag") }
                position += 1
                guard let open = stack.popLast() else { throw fail("an end tag without a start") }
                guard open.qualifiedName.elementsEqual(name) else { throw fail("an end tag that does not match") }
                scopes.removeLast(open.bindings)
                handler.end(namespace: open.namespace, name: open.name)
            default:
                try startTag(&handler, stack: &stack, scopes: &scopes, sawRoot: &sawRoot)
            }
        }
        guard sawRoot, stack.isEmpty else { throw cutShort() }
    }

    /// A start tag at `position`: its attributes read, its namespace bindings pushed, reported.
    private mutating func startTag<H: Handler>(
        _ handler: inout H, stack: inout [Open], scopes: inout [Binding], sawRoot: inout Bool
    ) throws(Failure) {
        guard !(sawRoot && stack.isEmpty) else { throw fail("a second root element") }
        position += 1
        let qualifiedName = try readName()
        var bindings = 0
        var selfClosing = false
        while true {
            let hadSpace = skipSpace()
            guard position < bytes.count else { throw cutShort() }
            if bytes[position] == UInt8(ascii: ">") {
                position += 1
                break
            }
            if matches("/>") {
                position += 2
                selfClosing = true
                break
            }
            guard hadSpace else { throw fail("a malformed start tag") }
            let attribute = try readName()
            skipSpace()
            guard position < bytes.count else { throw cutShort() }
            guard bytes[position] == UInt8(ascii: "=") else { throw fail("an attribute without a value") }
            position += 1
            skipSpace()
            guard position < bytes.count else { throw cutShort() }
            let quote = bytes[position]
            guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                throw fail("an attribute value without quotes")
            }
            position += 1
            let start = position
            while position < bytes.count && bytes[position] != quote { position += 1 }
            guard position < bytes.count else { throw cutShort() }
            let value = bytes[start..<position]
            position += 1
            if attribute.elementsEqual("xmlns".utf8) {
                scopes.append(Binding(prefix: [], uri: try decodeText(value)))
                bindings += 1
            } else if attribute.starts(with: "xmlns:".utf8) {
                scopes.append(Binding(prefix: attribute.dropFirst(6), uri: try decodeText(value)))
                bindings += 1
            }
        }
        let colon = qualifiedName.firstIndex(of: UInt8(ascii: ":"))
        let prefix = colon.map { qualifiedName[..<$0] } ?? []
        let local = colon.map { qualifiedName[qualifiedName.index(after: $0)...] } ?? qualifiedName
        guard !local.isEmpty else { throw fail("an element without a name") }
        var namespace: String?
        if let binding = scopes.last(where: { $0.prefix.elementsEqual(prefix) }) {
            namespace = binding.uri.isEmpty ? nil : binding.uri
        } else if !prefix.isEmpty {
            throw fail("the undeclared namespace prefix '\(String(decoding: prefix, as: UTF8.self))'")
        }
        let name = String(decoding: local, as: UTF8.self)
        sawRoot = true
        handler.start(namespace: namespace, name: name)
        if selfClosing {
            scopes.removeLast(bindings)
            handler.end(namespace: namespace, name: name)
        } else {
            guard stack.count < Self.maximumDepth else { throw fail("elements nested too deep") }
            stack.append(
                Open(qualifiedName: qualifiedName, namespace: namespace, name: name, bindings: bindings))
        }
    }

    // MARK: Pieces

    private func matches(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        return bytes.withUnsafeBufferPointer { memcmp($0.baseAddress! + position, text.utf8Start, count) == 0 }
    }

    private mutating func skip(past end: StaticString, what: String) throws(Failure) {
        let pattern = Array(UnsafeBufferPointer(start: end.utf8Start, count: end.utf8CodeUnitCount))
        while position + pattern.count <= bytes.count {
            if bytes[position..<(position + pattern.count)].elementsEqual(pattern) {
                position += pattern.count
                return
            }
            position += 1
        }
        position = bytes.count
        throw cutShort()
    }

    @discardableResult
    private mutating func skipSpace() -> Bool {
        let start = position
        while position < bytes.count && Self.isSpace(bytes[position]) { position += 1 }
        return position > start
    }

    private mutating func readName() throws(Failure) -> ArraySlice<UInt8> {
        let start = position
        while position < bytes.count, Self.isNameByte(bytes[position]) { position += 1 }
        guard position > start else {
            if position >= bytes.count { throw cutShort() }
            throw fail("a missing name")
        }
        return bytes[start..<position]
    }

    /// Text with its entity and character references replaced.
    private func decodeText(_ raw: ArraySlice<UInt8>) throws(Failure) -> String {
        guard raw.contains(UInt8(ascii: "&")) else { return String(decoding: raw, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var index = raw.startIndex
        while index < raw.endIndex {
            guard raw[index] == UInt8(ascii: "&") else {
                out.append(raw[index])
                index += 1
                continue
            }
            guard let semicolon = raw[index...].firstIndex(of: UInt8(ascii: ";")), semicolon - index <= 10 else {
                throw fail("an unterminated entity reference")
            }
            let entity = String(decoding: raw[(index + 1)..<semicolon], as: UTF8.self)
            switch entity {
            case "lt": out.append(UInt8(ascii: "<"))
            case "gt": out.append(UInt8(ascii: ">"))
            case "amp": out.append(UInt8(ascii: "&"))
            case "quot": out.append(UInt8(ascii: "\""))
            case "apos": out.append(UInt8(ascii: "'"))
            default:
                let number: UInt32? =
                    entity.hasPrefix("#x")
                    ? UInt32(entity.dropFirst(2), radix: 16)
                    : entity.hasPrefix("#") ? UInt32(entity.dropFirst(), radix: 10) : nil
                guard let number, number != 0, let scalar = Unicode.Scalar(number) else {
                    throw fail("the unknown entity '&\(entity);'")
                }
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
            }
            index = semicolon + 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private func line() -> Int {
        1 + bytes[..<min(position, bytes.count)].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    }

    private func fail(_ reason: String) -> Failure {
        Failure(line: line(), reason: reason, isCutShort: false)
    }

    private func cutShort() -> Failure {
        Failure(line: line(), reason: "the document ended early", isCutShort: true)
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// Bytes of an XML name: letters, digits, `_ - . :` and every byte of a multi-byte character.
    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: ":"), 0x80...0xFF:
            return true
        default:
            return false
        }
    }
}

extension MinimalXMLReader {
    /// Whether `data` is UTF-8 without NUL, as an XML answer must be before it is read: checked over the
    /// bytes in place (iterating a `Data` byte by byte cost a tenth of an unchanged S3 store's run).
    static func isText(_ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return true }
            guard memchr(base, 0, bytes.count) == nil else { return false }
            // Valid UTF-8 is exactly what decodes and encodes back to the same bytes (a portable check:
            // `String(validating:)` needs macOS 15).
            var decoded = String(decoding: bytes, as: UTF8.self)
            return decoded.utf8.count == bytes.count
                && decoded.withUTF8 { memcmp($0.baseAddress!, base, bytes.count) == 0 }
        }
    }
}
