import Foundation
import Snapshots
import Testing

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
