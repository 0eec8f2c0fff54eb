/// Numbers written as Swift prints them, without the `String` printing makes: the JSON writer's and the
/// Prometheus exposition's fractions (a ratio, a cost, a pace), tens of thousands in one output.
extension ByteOutput {
    /// A finite `value` that is not a whole number, as `description` writes it (the shortest text that
    /// reads back as the same double). Percentages and costs (53.07, 341.5167) have their digits written
    /// directly; others go through the standard library's own formatter, straight into the buffer.
    @inlinable public func fraction(_ value: Double) {
        if let (scaled, digits) = Self.shortDecimal(value) {
            if value < 0 { byte(UInt8(ascii: "-")) }
            let divisor = Self.powersOfTen[digits]
            integer(scaled / divisor)
            byte(UInt8(ascii: "."))
            var fraction = scaled % divisor
            var place = divisor / 10
            while place > 0 {
                byte(UInt8(truncatingIfNeeded: fraction / place) &+ 0x30)
                fraction %= place
                place /= 10
            }
        } else {
            var stream = ASCIIStream(output: self)
            value.write(to: &stream)
        }
    }

    /// Takes the ASCII a number formats itself into (`TextOutputStreamable.write(to:)` hands it over as
    /// a buffer through `_writeASCII`), without a `String` between.
    @usableFromInline struct ASCIIStream: TextOutputStream {
        @usableFromInline let output: ByteOutput

        @usableFromInline init(output: ByteOutput) {
            self.output = output
        }

        @usableFromInline mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
            if let base = buffer.baseAddress { output.bytes(base, buffer.count) }
        }

        @usableFromInline mutating func write(_ string: String) {
            var string = string
            string.withUTF8 { if let base = $0.baseAddress { output.bytes(base, $0.count) } }
        }
    }

    @usableFromInline static let powersOfTen = [1, 10, 100, 1000, 10000]

    /// `value` as `k / 10^d` with the fewest digits `d` (1 to 4), when that decimal is exactly what the
    /// double round-trips to: then it is the shortest text `description` would choose. Below 10^9 the
    /// doubles are far closer together than 10^-4, so no other decimal of at most four places lands on
    /// the same double. Nil otherwise (pace figures with all their digits), and `description` writes it.
    @inlinable static func shortDecimal(_ value: Double) -> (scaled: Int, digits: Int)? {
        let magnitude = abs(value)
        guard magnitude < 1e9, magnitude >= 1e-4 else { return nil }
        // A decimal of at most four places is, times 10^4, within rounding error of a whole number: a
        // figure with all its digits (a pace) is told apart with one product instead of four tries.
        let tenThousandths = magnitude * 10000
        guard abs(tenThousandths - nearest(tenThousandths)) < 1e-3 else { return nil }
        for digits in 1...4 {
            let power = Double(powersOfTen[digits])
            let scaled = nearest(magnitude * power)
            if scaled / power == magnitude { return (Int(scaled), digits) }
        }
        return nil
    }

    /// The whole number nearest a non-negative `value` below 2^62, without a call into libm (`rounded()`
    /// is one on x86-64's baseline). Halfway cases and the odd double just below one may land one off;
    /// `shortDecimal` checks every candidate, so that never changes what is written.
    @inlinable @inline(__always)
    static func nearest(_ value: Double) -> Double {
        Double(Int64(value + 0.5))
    }
}
