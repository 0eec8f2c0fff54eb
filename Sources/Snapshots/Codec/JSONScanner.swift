import Portable

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A malformed JSON document: the byte where reading stopped.
package struct JSONSyntaxError: Error, Equatable {
    package var offset: Int
    /// The document is valid JSON nested deeper than `JSONScanner.maximumDepth`.
    package var tooDeep = false

    package init(offset: Int, tooDeep: Bool = false) {
        self.offset = offset
        self.tooDeep = tooDeep
    }

    /// One line for a problem list: what is wrong, and where.
    package var reason: String {
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
package struct JSONScanner {
    /// Containers open at once, the top-level one included.
    package static let maximumDepth = 512

    package let base: UnsafePointer<UInt8>
    package let count: Int
    package var index = 0
    package var depth = 0
    /// Where array shapes are kept for later arrays (`skipArrayOfShapes`); made on first use when nil.
    package var shapeMemory: ShapeMemory?

    /// A raw string token: where its content starts and ends, and whether it needs unescaping.
    package struct RawString {
        package var start: Int
        package var end: Int
        package var hasEscapes: Bool
    }

    package enum Kind {
        case object, array, string, number, bool, null
    }

    package init(_ buffer: UnsafeRawBufferPointer) {
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

    package var error: JSONSyntaxError { JSONSyntaxError(offset: index) }

    @inline(__always)
    package mutating func skipWhitespace() {
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
    @inline(__always)
    package mutating func peek() -> UInt8 {
        skipWhitespace()
        return index < count ? base[index] : 0
    }

    /// What the next value is, without consuming it.
    @inline(__always)
    package mutating func kind() throws(JSONSyntaxError) -> Kind {
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
    package mutating func finish() throws(JSONSyntaxError) {
        skipWhitespace()
        guard index == count else { throw error }
    }

    // MARK: Containers

    /// Consumes `{`.
    package mutating func enterObject() throws(JSONSyntaxError) {
        guard peek() == UInt8(ascii: "{") else { throw error }
        index += 1
        depth += 1
        guard depth <= JSONScanner.maximumDepth else { throw JSONSyntaxError(offset: index, tooDeep: true) }
    }

    /// Consumes `[`.
    package mutating func enterArray() throws(JSONSyntaxError) {
        guard peek() == UInt8(ascii: "[") else { throw error }
        index += 1
        depth += 1
        guard depth <= JSONScanner.maximumDepth else { throw JSONSyntaxError(offset: index, tooDeep: true) }
    }

    /// Moves to the next member of an object and returns its key, or nil after consuming the closing `}`.
    /// The caller must consume the member's value before asking for the next one.
    package mutating func nextKey(_ first: inout Bool) throws(JSONSyntaxError) -> RawString? {
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
    package mutating func nextElement(_ first: inout Bool) throws(JSONSyntaxError) -> Bool {
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

    /// Whether `key` is exactly `name` (keys are compared as bytes, escapes decoded when present).
    package func key(_ key: RawString, is name: StaticString) -> Bool {
        let length = name.utf8CodeUnitCount
        if !key.hasEscapes {
            return key.end - key.start == length && memcmp(base + key.start, name.utf8Start, length) == 0
        }
        let decoded = unescaped(key)
        return decoded.count == length
            && decoded.withUnsafeBufferPointer { memcmp($0.baseAddress!, name.utf8Start, length) == 0 }
    }

    /// Reads a string token (the cursor on its opening quote), validating escapes and UTF-8.
    package mutating func readRawString() throws(JSONSyntaxError) -> RawString {
        guard peek() == UInt8(ascii: "\"") else { throw error }
        index += 1
        let start = index
        var hasEscapes = false
        while true {
            // Plain ASCII runs are the common case: eight bytes per step, stopping at the first byte that
            // needs a look (quote, backslash, control character, or the start of a multi-byte character).
            // That byte is classified at once; only the last few bytes of a buffer go one at a time.
            while index + 8 <= count {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                let mask = ByteWords.stopsInJSONString(word)
                if mask != 0 {
                    index += mask.trailingZeroBitCount >> 3
                    break
                }
                index += 8
            }
            guard index < count else { throw error }
            let byte = base[index]
            if byte == UInt8(ascii: "\"") {
                let raw = RawString(start: start, end: index, hasEscapes: hasEscapes)
                index += 1
                return raw
            } else if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                try skipEscape()
            } else if byte < 0x20 {
                throw error
            } else if byte >= 0x80 {
                try skipUTF8Sequence()
            } else {
                index += 1  // a plain byte in the tail, where fewer than eight remain
            }
        }
    }

    private mutating func skipEscape() throws(JSONSyntaxError) {
        index += 1
        guard index < count else { throw error }
        switch base[index] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            index += 1
        case UInt8(ascii: "u"):
            index += 1
            let unit = try readHex4()
            if (0xD800...0xDBFF).contains(unit) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard index + 1 < count, base[index] == UInt8(ascii: "\\"), base[index + 1] == UInt8(ascii: "u")
                else { throw error }
                index += 2
                guard (0xDC00...0xDFFF).contains(try readHex4()) else { throw error }
            } else if (0xDC00...0xDFFF).contains(unit) {
                throw error
            }
        default:
            throw error
        }
    }

    private mutating func readHex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= count else { throw error }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = base[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// One multi-byte UTF-8 sequence: no overlong forms, no surrogates, nothing above U+10FFFF.
    private mutating func skipUTF8Sequence() throws(JSONSyntaxError) {
        let lead = base[index]
        func continuation(_ offset: Int) -> Bool {
            index + offset < count && base[index + offset] & 0xC0 == 0x80
        }
        switch lead {
        case 0xC2...0xDF:
            guard continuation(1) else { throw error }
            index += 2
        case 0xE0...0xEF:
            guard continuation(1), continuation(2) else { throw error }
            let second = base[index + 1]
            if lead == 0xE0 && second < 0xA0 { throw error }  // overlong
            if lead == 0xED && second > 0x9F { throw error }  // surrogate
            index += 3
        case 0xF0...0xF4:
            guard continuation(1), continuation(2), continuation(3) else { throw error }
            let second = base[index + 1]
            if lead == 0xF0 && second < 0x90 { throw error }  // overlong
            if lead == 0xF4 && second > 0x8F { throw error }  // above U+10FFFF
            index += 4
        default:
            throw error
        }
    }

    /// The content of a validated string token.
    package func string(_ raw: RawString) -> String {
        if !raw.hasEscapes {
            return String(
                decoding: UnsafeBufferPointer(start: base + raw.start, count: raw.end - raw.start), as: UTF8.self)
        }
        return String(decoding: unescaped(raw), as: UTF8.self)
    }

    /// The bytes of a validated string token with escapes decoded.
    package func unescaped(_ raw: RawString) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(raw.end - raw.start)
        var i = raw.start
        func hex4(_ at: Int) -> UInt32 {
            var value: UInt32 = 0
            for k in 0..<4 {
                let byte = base[at + k]
                let digit: UInt32 =
                    byte <= UInt8(ascii: "9")
                    ? UInt32(byte - UInt8(ascii: "0")) : UInt32((byte | 0x20) - UInt8(ascii: "a") + 10)
                value = value << 4 | digit
            }
            return value
        }
        while i < raw.end {
            let byte = base[i]
            guard byte == UInt8(ascii: "\\") else {
                out.append(byte)
                i += 1
                continue
            }
            let escape = base[i + 1]
            i += 2
            switch escape {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex4(i)
                i += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    let low = hex4(i + 2)
                    i += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                out.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
            default: out.append(escape)  // " \ /
            }
        }
        return out
    }

    /// A number token: its extent, and its digits as an exact decimal when they fit.
    package struct RawNumber {
        package var start: Int
        package var end: Int
        package var negative: Bool
        /// The significant digits, when there are at most 19 of them.
        package var mantissa: UInt64
        package var digitCount: Int
        /// The value is `mantissa * 10^exponent`.
        package var exponent: Int
        package var isInteger: Bool
    }

    /// Reads a number token with strict JSON grammar.
    package mutating func readRawNumber() throws(JSONSyntaxError) -> RawNumber {
        skipWhitespace()
        let start = index
        var negative = false
        var mantissa: UInt64 = 0
        var digitCount = 0
        var exponent = 0
        var isInteger = true
        @inline(__always) func isDigit(_ at: Int) -> Bool {
            at < count && base[at] &- UInt8(ascii: "0") < 10
        }
        @inline(__always) func add(_ byte: UInt8) {
            if digitCount == 0 && byte == UInt8(ascii: "0") { return }  // leading zeros of a fraction
            if digitCount < 19 {
                mantissa = mantissa &* 10 &+ UInt64(byte &- UInt8(ascii: "0"))
            } else {
                exponent += 1  // beyond 19 digits only the magnitude is kept; strtod reads the text
            }
            digitCount += 1
        }
        if index < count && base[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        guard isDigit(index) else { throw error }
        if base[index] == UInt8(ascii: "0") {
            index += 1
            if isDigit(index) { throw error }
        } else {
            while isDigit(index) {
                add(base[index])
                index += 1
            }
        }
        if index < count && base[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard isDigit(index) else { throw error }
            while isDigit(index) {
                add(base[index])
                exponent -= 1
                index += 1
            }
        }
        if index < count && base[index] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            var negativeExponent = false
            if index < count && (base[index] == UInt8(ascii: "+") || base[index] == UInt8(ascii: "-")) {
                negativeExponent = base[index] == UInt8(ascii: "-")
                index += 1
            }
            guard isDigit(index) else { throw error }
            var value = 0
            while isDigit(index) {
                if value < 100_000 { value = value * 10 + Int(base[index] - UInt8(ascii: "0")) }
                index += 1
            }
            exponent += negativeExponent ? -value : value
        }
        return RawNumber(
            start: start, end: index, negative: negative, mantissa: mantissa, digitCount: digitCount,
            exponent: exponent, isInteger: isInteger)
    }

    /// Validates a number token without computing its value: for numbers a reader skips.
    ///
    /// The usual forms (`-`, up to seven integer digits, a fraction of up to seven) are measured eight
    /// bytes at a time; anything else, errors included, is read by `skipNumberByteWise`, from the start.
    @inline(__always)
    package mutating func skipNumber() throws(JSONSyntaxError) {
        // No digit, more than seven, a leading zero or an exponent: the byte-wise reader has the exact
        // answer.
        guard index + JSONScanner.shortNumberReach <= count else { return try skipNumberByteWise() }
        let length = JSONScanner.shortNumberLength(base + index)
        guard length > 0 else { return try skipNumberByteWise() }
        index += length
    }

    /// The bytes `shortNumberLength` may read.
    static let shortNumberReach = 17

    /// The length of the number at `start` when it has the short form most numbers of a record have
    /// (`-`, one to seven digits without a leading zero, a fraction of one to seven digits, no exponent),
    /// else 0: then `skipNumber` has the answer, also whether it is a number at all. Reads
    /// `shortNumberReach` bytes, which the caller has made sure are there. Branch-light: one history
    /// element has a number or two, and this is most of what a matched element costs beyond its words.
    @inline(__always)
    static func shortNumberLength(_ start: UnsafePointer<UInt8>) -> Int {
        let sign = start[0] == UInt8(ascii: "-") ? 1 : 0
        let whole = leadingDigits(start + sign)
        guard whole > 0, whole < 8, whole == 1 || start[sign] != UInt8(ascii: "0") else { return 0 }
        var end = sign + whole
        if start[end] == UInt8(ascii: ".") {
            let fraction = leadingDigits(start + end + 1)
            guard fraction > 0, fraction < 8 else { return 0 }
            end += 1 + fraction
        }
        return start[end] | 0x20 == UInt8(ascii: "e") ? 0 : end
    }

    /// How many of the eight bytes at `start` are ASCII digits before the first that is not (8: all).
    @inline(__always)
    static func leadingDigits(_ start: UnsafePointer<UInt8>) -> Int {
        // Per byte, exactly and without carries between bytes: b ^ 0x30 is below 10 only for a digit;
        // adding 0x76 to its low seven bits sets the high bit from 10 up.
        let shifted =
            UInt64(littleEndian: UnsafeRawPointer(start).loadUnaligned(as: UInt64.self)) ^ 0x3030_3030_3030_3030
        let notDigit = (((shifted & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7676_7676_7676_7676) | shifted) & 0x8080_8080_8080_8080
        return notDigit.trailingZeroBitCount >> 3
    }

    /// `skipNumber` one byte at a time, for any form and at the end of a document.
    mutating func skipNumberByteWise() throws(JSONSyntaxError) {
        @inline(__always) func isDigit(_ at: Int) -> Bool {
            at < count && base[at] &- UInt8(ascii: "0") < 10
        }
        if index < count && base[index] == UInt8(ascii: "-") { index += 1 }
        guard isDigit(index) else { throw error }
        if base[index] == UInt8(ascii: "0") {
            index += 1
            if isDigit(index) { throw error }
        } else {
            while isDigit(index) { index += 1 }
        }
        if index < count && base[index] == UInt8(ascii: ".") {
            index += 1
            guard isDigit(index) else { throw error }
            while isDigit(index) { index += 1 }
        }
        if index < count && base[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < count && (base[index] == UInt8(ascii: "+") || base[index] == UInt8(ascii: "-")) { index += 1 }
            guard isDigit(index) else { throw error }
            while isDigit(index) { index += 1 }
        }
    }

    private static let powersOfTen: [Double] = (0...22).map { pow(10, Double($0)) }

    /// The number's value as a correctly rounded `Double`, or nil when it is out of range (too large, or
    /// non-zero but too small to represent).
    package func double(_ number: RawNumber) -> Double? {
        // Clinger's fast path: an exact mantissa times an exact power of ten rounds correctly.
        if number.digitCount <= 15, number.exponent >= -22, number.exponent <= 22 {
            var value = Double(number.mantissa)
            if number.exponent < 0 {
                value /= JSONScanner.powersOfTen[-number.exponent]
            } else {
                value *= JSONScanner.powersOfTen[number.exponent]
            }
            return number.negative ? -value : value
        }
        let length = number.end - number.start
        var buffer = [CChar](repeating: 0, count: length + 1)
        buffer.withUnsafeMutableBufferPointer { target in
            UnsafeMutableRawPointer(target.baseAddress!).copyMemory(from: base + number.start, byteCount: length)
        }
        let value = strtod(buffer, nil)
        if !value.isFinite { return nil }
        if value == 0 && number.mantissa != 0 { return nil }
        return value
    }

    /// The number's value as an `Int`: integers, and other forms whose value is integral (`1e2`, `12.0`).
    package func int(_ number: RawNumber) -> Int? {
        if number.isInteger && number.digitCount <= 18 {
            let magnitude = Int(number.mantissa)
            return number.negative ? -magnitude : magnitude
        }
        if number.isInteger {
            // Up to 19 digits: exact arithmetic with an overflow check.
            var value = 0
            var negativeMagnitude = 0
            for i in number.start..<number.end where base[i] != UInt8(ascii: "-") {
                let (times, o1) = negativeMagnitude.multipliedReportingOverflow(by: 10)
                let (minus, o2) = times.subtractingReportingOverflow(Int(base[i] - UInt8(ascii: "0")))
                if o1 || o2 { return nil }
                negativeMagnitude = minus
            }
            if number.negative { return negativeMagnitude }
            let (positive, overflow) = (0).subtractingReportingOverflow(negativeMagnitude)
            value = positive
            return overflow ? nil : value
        }
        guard let value = double(number), value.rounded() == value, value >= -9.223_372_036_854_775_808e18,
            value < 9.223_372_036_854_775_808e18
        else { return nil }
        return Int(value)
    }

    /// Reads `true` or `false`.
    package mutating func readBool() throws(JSONSyntaxError) -> Bool {
        if try literal("true") { return true }
        if try literal("false") { return false }
        throw error
    }

    /// Consumes `null` if it is next, and says whether it was.
    package mutating func readNull() throws(JSONSyntaxError) -> Bool {
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
    package mutating func skipValue(repeatedShapes: Bool = true) throws(JSONSyntaxError) {
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
