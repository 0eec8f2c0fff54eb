import Foundation
import TestSupport
import Testing

@testable import Serialization

struct RFC3339Tests {
    @Test(
        "readers accept fractional seconds and any UTC offset",
        arguments: [
            "2026-11-30T12:00:00Z", "2026-11-30T12:00:00.000Z", "2026-11-30T13:00:00+01:00",
            "2026-11-30T07:30:00-04:30", "2026-11-30T14:00:00+0200", "2026-11-30T15:00:00+03",
            "2026-11-30t12:00:00z", "2026-11-30 12:00:00Z",
        ])
    func acceptsOffsetsAndFractions(text: String) {
        #expect(RFC3339.parse(text) == Date(timeIntervalSince1970: 1_796_040_000))
    }

    @Test("the date and time read eight bytes at a time agree with the byte loop, and never accept more")
    func wordWiseAgreesWithByteWise() {
        var generator = SeededGenerator(seed: 3339)
        let alphabet = Array("0123456789-:Tt Z/9:".utf8) + [0x00, 0x2F, 0x3A, 0x40, 0x80, 0xB9, 0xBA, 0xC6, 0xFF]
        var agreed = 0
        for round in 0..<200_000 {
            let year = Int.random(in: 0...9999, using: &generator)
            let text =
                String(
                    format: "%04d-%02d-%02dT%02d:%02d:%02dZ", year, Int.random(in: 0...19, using: &generator),
                    Int.random(in: 0...39, using: &generator), Int.random(in: 0...29, using: &generator),
                    Int.random(in: 0...69, using: &generator), Int.random(in: 0...69, using: &generator))
            var bytes = Array(text.utf8)
            // Most rounds break a byte or two (digits into separators, separators into digits, high bytes).
            for _ in 0..<(round % 4) {
                bytes[Int.random(in: 0..<19, using: &generator)] = alphabet.randomElement(using: &generator)!
            }
            bytes.withUnsafeBytes { buffer in
                let byteWise = RFC3339.fieldsByteWise(buffer)
                if let wordWise = RFC3339.fieldsWordWise(buffer) {
                    #expect(wordWise == byteWise, "\(String(decoding: bytes, as: UTF8.self))")
                    agreed += 1
                } else if round % 4 == 0 {
                    // Unbroken, with a T: the fast path takes it.
                    Issue.record("word-wise refused \(text)")
                }
            }
        }
        #expect(agreed > 60_000)
    }

    @Test("fractional seconds keep their value")
    func fractions() {
        #expect(RFC3339.parse("2026-11-30T12:00:00.25Z")?.timeIntervalSince1970 == 1_796_040_000.25)
        #expect(RFC3339.parse("2026-11-30T14:59:59.771647+00:00") != nil)
    }

    @Test(
        "malformed or impossible dates are refused",
        arguments: [
            "", "2026-11-30", "2026-11-30T12:00:00", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z",
            "2026-11-31T00:00:00Z", "2026-11-30T24:00:00Z", "2026-11-30T12:60:00Z", "2026-11-30T12:00:00+25:00",
            "2026-11-30T12:00:00.Z", "2026-11-30T12:00:00Zjunk", "yesterday", "1796040000",
        ])
    func refusesMalformed(text: String) {
        #expect(RFC3339.parse(text) == nil)
    }

    @Test("leap days exist only in leap years")
    func leapDays() {
        #expect(RFC3339.parse("2028-02-29T00:00:00Z") != nil)
        #expect(RFC3339.parse("2000-02-29T00:00:00Z") != nil)
        #expect(RFC3339.parse("2100-02-29T00:00:00Z") == nil)
    }

    @Test("writers write UTC with Z, and milliseconds only when there is a fraction")
    func formatting() {
        #expect(RFC3339.format(Date(timeIntervalSince1970: 1_796_040_000)) == "2026-11-30T12:00:00Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 1_796_040_000.25)) == "2026-11-30T12:00:00.250Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59Z")
        #expect(RFC3339.utcDay(RFC3339.parse("2026-12-01T01:00:00+03:00")!) == "2026-11-30")
    }

    @Test("format and parse agree across four centuries of dates")
    func roundTrip() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let seconds = Double(Int64.random(in: -2_208_988_800...7_258_118_400, using: &generator))
            let date = Date(timeIntervalSince1970: seconds)
            #expect(RFC3339.parse(RFC3339.format(date)) == date)
        }
    }
}
