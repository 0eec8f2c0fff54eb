import Portable

/// HTTP dates (RFC 9110 section 5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT`, the form every server sends in
/// `Date`, `Retry-After` and WebDAV's `getlastmodified`. Read by position: a big store's listing holds one
/// per record, and a date formatter costs more than the XML around it.
public enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The date, or nil for anything but an IMF-fixdate (the obsolete forms are not sent any more).
    public static func parse(_ text: String) -> Date? {
        if let date = text.utf8.withContiguousStorageIfAvailable(parseFixed) ?? nil { return date }
        return parseBySpaces(text)
    }

    /// The 29 bytes every server writes (`Sun, 06 Nov 1994 08:49:37 GMT`), read by position without
    /// splitting (splitting made an array and five strings per record of a listing); nil for anything
    /// else, which `parseBySpaces` then judges. It takes nothing that one would not.
    private static func parseFixed(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == UInt8(ascii: " "),
            bytes[7] == UInt8(ascii: " "), bytes[11] == UInt8(ascii: " "), bytes[16] == UInt8(ascii: " "),
            bytes[19] == UInt8(ascii: ":"), bytes[22] == UInt8(ascii: ":"), bytes[25] == UInt8(ascii: " "),
            bytes[26] == UInt8(ascii: "G"), bytes[27] == UInt8(ascii: "M"), bytes[28] == UInt8(ascii: "T"),
            bytes[0] != UInt8(ascii: " "), bytes[1] != UInt8(ascii: " "), bytes[2] != UInt8(ascii: " ")
        else { return nil }
        func number(_ start: Int, _ count: Int) -> Int? {
            var value = 0
            for index in start..<(start + count) {
                let digit = Int(bytes[index]) - 0x30
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard let day = number(5, 2), let year = number(12, 4), let hour = number(17, 2), let minute = number(20, 2),
            let second = number(23, 2), (1...31).contains(day), hour < 24, minute < 60, second <= 60,
            let month = months.firstIndex(where: { name in
                name.utf8.elementsEqual(UnsafeBufferPointer(rebasing: bytes[8..<11]))
            })
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month + 1, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    /// Any text of six parts split by spaces, read as an IMF-fixdate.
    static func parseBySpaces(_ text: String) -> Date? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", parts[0].hasSuffix(","), let day = Int(parts[1]),
            let month = months.firstIndex(of: String(parts[2])), let year = Int(parts[3]), (1...31).contains(day)
        else { return nil }
        let clock = parts[4].split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3, clock[0] < 24, clock[1] < 60, clock[2] <= 60 else { return nil }
        let days = daysSinceEpoch(year: year, month: month + 1, day: day)
        let seconds = days * 86_400 + clock[0] * 3_600 + clock[1] * 60 + clock[2]
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Days from 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's `days_from_civil`).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
