import Portable

/// HTTP dates (RFC 9110 section 5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT`, the form every server sends in
/// `Date`, `Retry-After` and WebDAV's `getlastmodified`. Read by position: a big store's listing holds one
/// per record, and a date formatter costs more than the XML around it.
public enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The date, or nil for anything but an IMF-fixdate (the obsolete forms are not sent any more).
    public static func parse(_ text: String) -> Date? {
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
