import Foundation
import TestSupport
import Testing

@testable import HTTP

@Suite struct HTTPDateTests {
    /// `date` as a server writes it: `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func text(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "GMT")!
        let parts = calendar.dateComponents([.weekday, .day, .month, .year, .hour, .minute, .second], from: date)
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekdays[parts.weekday! - 1]), \(two(parts.day!)) \(months[parts.month! - 1]) \(parts.year!) "
            + "\(two(parts.hour!)):\(two(parts.minute!)):\(two(parts.second!)) GMT"
    }

    @Test("dates read by position agree with dates read by spaces, on every byte changed every way")
    func positionsAgreeWithSpaces() {
        var generator = SeededGenerator(seed: 9)
        // Bytes that each mean something to one reading or the other.
        let replacements = Array("0159+- ,:GMTaZ\t".utf8) + [0xC3]
        var compared = 0
        for _ in 0..<200 {
            let date = Date(timeIntervalSince1970: Double(Int.random(in: 0..<4_102_444_800, using: &generator)))
            let valid = Self.text(date)
            #expect(HTTPDate.parse(valid) == date, "\(valid)")
            for position in 0..<29 {
                for byte in replacements {
                    var bytes = Array(valid.utf8)
                    bytes[position] = byte
                    let text = String(decoding: bytes, as: UTF8.self)
                    #expect(HTTPDate.parse(text) == HTTPDate.parseBySpaces(text), "\(text)")
                    compared += 1
                }
            }
        }
        // Lengths the fixed reading refuses outright, which the reading by spaces then judges alone.
        for text in [
            "Sun, 6 Nov 1994 08:49:37 GMT", "Sun,  06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT ",
        ] {
            #expect(HTTPDate.parse(text) == HTTPDate.parseBySpaces(text), "\(text)")
        }
        #expect(compared == 200 * 29 * replacements.count)
    }
}
