import Portable

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A malformed JSON document: the byte where reading stopped.
public struct JSONSyntaxError: Error, Equatable {
    public var offset: Int
    /// The document is valid JSON nested deeper than `JSONScanner.maximumDepth`.
    public var tooDeep = false

    public init(offset: Int, tooDeep: Bool = false) {
        self.offset = offset
        self.tooDeep = tooDeep
    }

    /// One line for a problem list: what is wrong, and where.
    public var reason: String {
        tooDeep
            ? "nested deeper than \(JSONScanner.maximumDepth) arrays and objects (at byte \(offset)); not read"
            : "not valid JSON (at byte \(offset))"
    }
}

/// A forward-only cursor over the bytes of one JSON document, for readers that know their schema.
///
/// It validates everything it passes over, including values a reader skips: strict RFC 8259 grammar (no
/// trailing commas, no leading zeros), UTF-8 without overlong forms or surrogates, escapes, and at most
/// `maximumDepth` nested containers (Foundation's limit, so both readers refuse the same nesting). No
/// value is materialised unless asked for: keys are compared as bytes, numbers and dates are read from
/// the bytes in place.
public struct JSONScanner {
    /// Containers open at once, the top-level one included.
    public static let maximumDepth = 512

    public let base: UnsafePointer<UInt8>
    public let count: Int
    public var index = 0
    public var depth = 0
    /// Where array shapes are kept for later arrays (`skipArrayOfShapes`); made on first use when nil.
    public var shapeMemory: ShapeMemory?
    /// What the reader over this scanner noted as it went (the record's reader: values it left out for
    /// their shape), carried with the cursor so that every nested reader can add to it. Opaque here: only
    /// the reader that made the notes reads them.
    public var readerNotes: [any Sendable] = []

    /// A raw string token: where its content starts and ends, and whether it needs unescaping.
    public struct RawString {
        public var start: Int
        public var end: Int
        public var hasEscapes: Bool
    }

    public enum Kind {
        case object, array, string, number, bool, null
    }

    public init(_ buffer: UnsafeRawBufferPointer) {
        if let address = buffer.baseAddress, buffer.count > 0 {
            base = address.assumingMemoryBound(to: UInt8.self)
            count = buffer.count
        } else {
            base = JSONScanner.emptyBuffer
            count = 0
        }
        // A UTF-8 byte order mark is tolerated, as Foundation tolerates it.
        if count >= 3, base[0] == 0xEF, base[1] == 0xBB, base[2] == 0xBF { index = 3 }
    }

    // Never written after initialisation: a stand-in address for empty documents.
    nonisolated(unsafe) private static let emptyBuffer: UnsafePointer<UInt8> = {
        let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        pointer.initialize(to: 0)
        return UnsafePointer(pointer)
    }()

    @inlinable public var error: JSONSyntaxError { JSONSyntaxError(offset: index) }

    // Inlinable: the record reader in another module calls these for every value.
    @inlinable @inline(__always)
    public mutating func skipWhitespace() {
        while index < count {
            let byte = base[index]
            // Every structural byte and value start is above the space: one comparison in the common case.
            if byte > 0x20 { return }
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            index += 1
        }
    }

    /// Passes a line break and up to eight spaces after it in one step: between the keys of an indented
    /// document, where skipping white space byte by byte was a third of reading a key. Kept out of
    /// `skipWhitespace`, which is inlined everywhere and got slower with it.
    @inline(__always)
    mutating func skipLineBreakAndIndentation() {
        guard index + 9 <= count, base[index] == 0x0A else { return }
        let word = UnsafeRawPointer(base + index + 1).loadUnaligned(as: UInt64.self)
        // The low bytes of the word that are exactly spaces; the first that differs stops the count.
        index += 1 + (UInt64(littleEndian: word) ^ 0x2020_2020_2020_2020).trailingZeroBitCount >> 3
    }

    /// The byte at the cursor after whitespace, or 0 at the end.
    // Inlinable: the record reader in another module calls these for every value.
    @inlinable @inline(__always)
    public mutating func peek() -> UInt8 {
        skipWhitespace()
        return index < count ? base[index] : 0
    }

    /// What the next value is, without consuming it.
    // Inlinable: the record reader in another module calls these for every value.
    @inlinable @inline(__always)
    public mutating func kind() throws(JSONSyntaxError) -> Kind {
        switch peek() {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        default: throw error
        }
    }

    /// Ends the document: only whitespace may follow the top-level value.
    public mutating func finish() throws(JSONSyntaxError) {
        skipWhitespace()
        guard index == count else { throw error }
    }

    // MARK: Containers

    /// Consumes `{`.
    public mutating func enterObject() throws(JSONSyntaxError) {
        guard peek() == UInt8(ascii: "{") else { throw error }
        index += 1
        depth += 1
        guard depth <= JSONScanner.maximumDepth else { throw JSONSyntaxError(offset: index, tooDeep: true) }
    }

    /// Consumes `[`.
    public mutating func enterArray() throws(JSONSyntaxError) {
        guard peek() == UInt8(ascii: "[") else { throw error }
        index += 1
        depth += 1
        guard depth <= JSONScanner.maximumDepth else { throw JSONSyntaxError(offset: index, tooDeep: true) }
    }

    /// Moves to the next member of an object and returns its key, or nil after consuming the closing `}`.
    /// The caller must consume the member's value before asking for the next one.
    public mutating func nextKey(_ first: inout Bool) throws(JSONSyntaxError) -> RawString? {
        skipLineBreakAndIndentation()  // before the first key or the closing brace
        var byte = peek()
        if byte == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            first = false
            return nil
        }
        if !first {
            guard byte == UInt8(ascii: ",") else { throw error }
            index += 1
            skipLineBreakAndIndentation()
            byte = peek()
        }
        first = false
        guard byte == UInt8(ascii: "\"") else { throw error }
        let key = try readRawString()
        guard peek() == UInt8(ascii: ":") else { throw error }
        index += 1
        return key
    }

    /// Moves to the next element of an array; false after consuming the closing `]`.
    public mutating func nextElement(_ first: inout Bool) throws(JSONSyntaxError) -> Bool {
        let byte = peek()
        if byte == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            first = false
            return false
        }
        if !first {
            guard byte == UInt8(ascii: ",") else { throw error }
            index += 1
        }
        first = false
        return true
    }

    // MARK: Scalars

    /// Reads `true` or `false`.
    public mutating func readBool() throws(JSONSyntaxError) -> Bool {
        if try literal("true") { return true }
        if try literal("false") { return false }
        throw error
    }

    /// Consumes `null` if it is next, and says whether it was.
    public mutating func readNull() throws(JSONSyntaxError) -> Bool {
        guard peek() == UInt8(ascii: "n") else { return false }
        guard try literal("null") else { throw error }
        return true
    }

    private mutating func literal(_ word: StaticString) throws(JSONSyntaxError) -> Bool {
        skipWhitespace()
        let length = word.utf8CodeUnitCount
        guard index + length <= count, memcmp(base + index, word.utf8Start, length) == 0 else { return false }
        index += length
        return true
    }

    /// Skips one value of any kind, validating it fully.
    ///
    /// One loop with a bit stack of open containers rather than a recursive call per value: skipping
    /// history is most of reading a record, and the calls cost more than the bytes.
    ///
    /// - Parameter repeatedShapes: whether arrays are passed over by the shape their elements repeat
    ///   (`skipArrayOfShapes`); false only to test that path against this one.
    public mutating func skipValue(repeatedShapes: Bool = true) throws(JSONSyntaxError) {
        // Bit d of the stack is set when the container open at relative depth d is an object.
        try withUnsafeTemporaryAllocation(of: UInt64.self, capacity: JSONScanner.maximumDepth / 64 + 1) {
            (kinds) throws(JSONSyntaxError) in
            kinds.initialize(repeating: 0)
            var open = 0
            func push(object: Bool) {
                let bit = UInt64(1) << UInt64(open & 63)
                kinds[open >> 6] = object ? kinds[open >> 6] | bit : kinds[open >> 6] & ~bit
                open += 1
            }
            var expectingValue = true
            while true {
                if expectingValue {
                    expectingValue = false
                    switch peek() {
                    case UInt8(ascii: "{"):
                        try enterObject()
                        push(object: true)
                        if peek() == UInt8(ascii: "}") {
                            index += 1
                            depth -= 1
                            open -= 1
                        } else {
                            try readMemberKey()
                            expectingValue = true
                        }
                    case UInt8(ascii: "[") where repeatedShapes && depth < JSONScanner.maximumShapeDepth:
                        try skipArrayOfShapes()
                    case UInt8(ascii: "["):
                        try enterArray()
                        push(object: false)
                        if peek() == UInt8(ascii: "]") {
                            index += 1
                            depth -= 1
                            open -= 1
                        } else {
                            expectingValue = true
                        }
                    case UInt8(ascii: "\""): _ = try readRawString()
                    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try skipNumber()
                    case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try readBool()
                    case UInt8(ascii: "n"): _ = try readNull()
                    default: throw error
                    }
                    continue
                }
                // After a value: done at the outer level, else a separator or the end of its container.
                if open == 0 { return }
                let inObject = kinds[(open - 1) >> 6] >> UInt64((open - 1) & 63) & 1 == 1
                let byte = peek()
                if byte == UInt8(ascii: ",") {
                    index += 1
                    if inObject { try readMemberKey() }
                    expectingValue = true
                } else if byte == (inObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    index += 1
                    depth -= 1
                    open -= 1
                } else {
                    throw error
                }
            }
        }
    }

    /// Reads `"key":` inside an object, leaving the cursor on the value.
    @inline(__always)
    private mutating func readMemberKey() throws(JSONSyntaxError) {
        guard peek() == UInt8(ascii: "\"") else { throw error }
        _ = try readRawString()
        guard peek() == UInt8(ascii: ":") else { throw error }
        index += 1
    }
}
