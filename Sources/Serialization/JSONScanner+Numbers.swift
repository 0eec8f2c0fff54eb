#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Numbers: JSON's grammar checked strictly, the digits kept as an exact decimal for the conversions.
extension JSONScanner {
    /// A number token: its extent, and its digits as an exact decimal when they fit.
    public struct RawNumber {
        public var start: Int
        public var end: Int
        public var negative: Bool
        /// The significant digits, when there are at most 19 of them.
        public var mantissa: UInt64
        public var digitCount: Int
        /// The value is `mantissa * 10^exponent`.
        public var exponent: Int
        public var isInteger: Bool
    }

    /// Reads a number token with strict JSON grammar.
    public mutating func readRawNumber() throws(JSONSyntaxError) -> RawNumber {
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
    public mutating func skipNumber() throws(JSONSyntaxError) {
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
    public func double(_ number: RawNumber) -> Double? {
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
    public func int(_ number: RawNumber) -> Int? {
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
}
