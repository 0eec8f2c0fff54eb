import Portable

/// Reading and writing the timestamps of records and reports.
///
/// Readers accept RFC 3339 / ISO 8601 date-times with or without fractional seconds and with any UTC
/// offset (`Z`, `+02:00`, `+0200`, `+02`); writers always write UTC with `Z`, and milliseconds only when
/// the date has a fraction of a second. Hand-written rather than `ISO8601DateFormatter` because records
/// carry many dates and the formatter is slow, allocates, and is picky about fractional seconds.
public enum RFC3339 {
    /// Parses `text`, or returns nil when it is not a complete, valid date-time.
    public static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Parses the bytes of a date-time; the whole buffer must be the date.
    public static func parse(bytes: UnsafeRawBufferPointer) -> Date? {
        guard let seconds = parseSeconds(bytes) else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    /// The most bytes `write(_:into:)` writes.
    public static let maximumLength = 32

    /// Formats `date` in UTC, e.g. `2026-11-30T12:00:00Z` or `2026-11-30T12:00:00.250Z`.
    public static func format(_ date: Date) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximumLength) { buffer in
            let count = write(date, into: buffer.baseAddress!)
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[0..<count]), as: UTF8.self)
        }
    }

    /// Writes the formatted date at `target` (room for `maximumLength` bytes) and returns its length:
    /// for writers that build output without a String per date.
    public static func write(_ date: Date, into target: UnsafeMutablePointer<UInt8>) -> Int {
        let interval = date.timeIntervalSince1970
        // Years past 9999 are clamped: four digits is what RFC 3339 allows.
        let millis =
            interval.isFinite ? Int64((min(max(interval, -62_135_596_800), 253_402_300_799) * 1000).rounded()) : 0
        let seconds = millis >= 0 ? millis / 1000 : (millis - 999) / 1000
        let fraction = Int(millis - seconds * 1000)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = civilDate(fromDays: days)
        var count = 0
        @inline(__always) func digits(_ value: Int, _ width: Int) {
            var value = value
            var index = width - 1
            while index >= 0 {
                target[count + index] = UInt8(truncatingIfNeeded: value % 10) &+ 0x30
                value /= 10
                index -= 1
            }
            count += width
        }
        @inline(__always) func byte(_ value: UInt8) {
            target[count] = value
            count += 1
        }
        digits(Int(year), 4)
        byte(0x2D)
        digits(month, 2)
        byte(0x2D)
        digits(day, 2)
        byte(0x54)
        digits(secondOfDay / 3600, 2)
        byte(0x3A)
        digits(secondOfDay / 60 % 60, 2)
        byte(0x3A)
        digits(secondOfDay % 60, 2)
        if fraction != 0 {
            byte(0x2E)
            digits(fraction, 3)
        }
        byte(0x5A)
        return count
    }

    /// The UTC calendar day of `date` as `YYYY-MM-DD`: how daily token ledgers are keyed.
    public static func utcDay(_ date: Date) -> String {
        String(format(date).prefix(10))
    }

    /// The number written by the `count` ASCII digits at `start` of `b`; nil when one is not a digit.
    private static func digits(_ b: UnsafeRawBufferPointer, _ start: Int, _ count: Int) -> Int? {
        var value = 0
        for i in start..<(start + count) {
            let c = b[i]
            guard c >= 0x30, c <= 0x39 else { return nil }
            value = value * 10 + Int(c - 0x30)
        }
        return value
    }

    /// The fields of `YYYY-MM-DDTHH:MM:SS`, the first 19 bytes of a date-time.
    struct Fields: Equatable {
        var year, month, day, hour, minute, second: Int
    }

    /// The first 19 bytes as `Fields`, read byte by byte; nil when they are not of that form (the date
    /// and time may be separated by `T`, `t` or a space).
    static func fieldsByteWise(_ b: UnsafeRawBufferPointer) -> Fields? {
        guard b.count >= 19 else { return nil }
        func digits(_ start: Int, _ count: Int) -> Int? { RFC3339.digits(b, start, count) }
        guard let year = digits(0, 4), b[4] == 0x2D, let month = digits(5, 2), b[7] == 0x2D,
            let day = digits(8, 2), b[10] == 0x54 || b[10] == 0x74 || b[10] == 0x20,
            let hour = digits(11, 2), b[13] == 0x3A, let minute = digits(14, 2), b[16] == 0x3A,
            let second = digits(17, 2)
        else { return nil }
        return Fields(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// The same fields, eight bytes at a time, for the form every writer uses (`T` between date and
    /// time); nil for anything else, which `fieldsByteWise` then decides. Records carry a score of dates
    /// each, and the byte loop was a fortieth of a cold read. Never accepts what `fieldsByteWise` refuses
    /// (`RFC3339Tests` holds the two to each other).
    static func fieldsWordWise(_ b: UnsafeRawBufferPointer) -> Fields? {
        guard b.count >= 19 else { return nil }
        // Bytes 0-7 `YYYY-MM-`, 8-15 `DDTHH:MM`, and 11-18 `HH:MM:SS` (overlapping the second).
        let date = UInt64(littleEndian: b.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
        let clock = UInt64(littleEndian: b.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        let seconds = UInt64(littleEndian: b.loadUnaligned(fromByteOffset: 11, as: UInt64.self))
        // Separators in place (lanes counted from the lowest byte).
        guard date & 0xFF00_00FF_0000_0000 == 0x2D00_002D_0000_0000,
            clock & 0x0000_FF00_00FF_0000 == 0x0000_3A00_0054_0000,
            seconds & 0x0000_FF00_0000_0000 == 0x0000_3A00_0000_0000,
            allDigits(date, lanes: 0x00FF_FF00_FFFF_FFFF), allDigits(clock, lanes: 0xFFFF_00FF_FF00_FFFF),
            allDigits(seconds, lanes: 0xFFFF_0000_0000_0000)
        else { return nil }
        // Lane by lane: subtracting `0` from the whole word would borrow across the separators.
        func lane(_ word: UInt64, _ index: Int) -> Int { Int(truncatingIfNeeded: word >> (8 * index) & 0xFF) - 0x30 }
        return Fields(
            year: lane(date, 0) * 1000 + lane(date, 1) * 100 + lane(date, 2) * 10 + lane(date, 3),
            month: lane(date, 5) * 10 + lane(date, 6), day: lane(clock, 0) * 10 + lane(clock, 1),
            hour: lane(clock, 3) * 10 + lane(clock, 4), minute: lane(clock, 6) * 10 + lane(clock, 7),
            second: lane(seconds, 6) * 10 + lane(seconds, 7))
    }

    /// Whether every lane of `word` marked 0xFF in `lanes` holds an ASCII digit. Other lanes are set to `0`
    /// first; then a lane below `0` borrows into the high bit and one above `9` carries into it. The
    /// lowest wrong lane always shows (no borrow or carry comes from the right lanes below it), and a
    /// wrong lane can only make others look wrong, never right.
    @inline(__always)
    private static func allDigits(_ word: UInt64, lanes: UInt64) -> Bool {
        let masked = (word & lanes) | (0x3030_3030_3030_3030 & ~lanes)
        let below = masked &- 0x3030_3030_3030_3030
        let above = masked &+ 0x4646_4646_4646_4646
        return (masked | below | above) & 0x8080_8080_8080_8080 == 0
    }

    private static func parseSeconds(_ b: UnsafeRawBufferPointer) -> Double? {
        // YYYY-MM-DDTHH:MM:SS is 19 bytes; the zone adds at least one.
        guard b.count >= 20, b.count <= 64 else { return nil }
        func digits(_ start: Int, _ count: Int) -> Int? { RFC3339.digits(b, start, count) }
        guard let fields = fieldsWordWise(b) ?? fieldsByteWise(b) else { return nil }
        let (year, month, day, hour, minute, second) = (
            fields.year, fields.month, fields.day, fields.hour, fields.minute, fields.second
        )
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year, month), hour <= 23, minute <= 59,
            second <= 60
        else { return nil }

        var index = 19
        var fraction = 0.0
        if b[index] == 0x2E || b[index] == 0x2C {
            index += 1
            // Digits as one integer and one division: correctly rounded, unlike a sum of tenths.
            var digits: Int64 = 0
            var scale: Int64 = 1
            let start = index
            while index < b.count, b[index] >= 0x30, b[index] <= 0x39 {
                if scale < 1_000_000_000_000 {
                    digits = digits * 10 + Int64(b[index] - 0x30)
                    scale *= 10
                }
                index += 1
            }
            guard index > start, index < b.count else { return nil }
            fraction = Double(digits) / Double(scale)
        }

        var offsetSeconds = 0
        switch b[index] {
        case 0x5A, 0x7A:  // Z or z
            guard index + 1 == b.count else { return nil }
        case 0x2B, 0x2D:  // + or -
            let sign = b[index] == 0x2D ? -1 : 1
            let rest = b.count - index - 1
            var hours = 0
            var minutes = 0
            if rest == 2, let h = digits(index + 1, 2) {
                hours = h
            } else if rest == 4, let h = digits(index + 1, 2), let m = digits(index + 3, 2) {
                (hours, minutes) = (h, m)
            } else if rest == 5, let h = digits(index + 1, 2), b[index + 3] == 0x3A, let m = digits(index + 4, 2) {
                (hours, minutes) = (h, m)
            } else {
                return nil
            }
            guard hours <= 23, minutes <= 59 else { return nil }
            offsetSeconds = sign * (hours * 3600 + minutes * 60)
        default:
            return nil
        }

        // A leap second (:60) is read as the last second of its minute; nothing here needs finer.
        let days = daysFromCivil(year: year, month: month, day: day)
        let whole = days * 86_400 + Int64(hour * 3600 + minute * 60 + min(second, 59)) - Int64(offsetSeconds)
        return Double(whole) + fraction
    }

    private static func isLeapYear(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    private static func daysInMonth(_ year: Int, _ month: Int) -> Int {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // Howard Hinnant's days_from_civil / civil_from_days: exact for every proleptic Gregorian date.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilDate(fromDays days: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = Int(doy - (153 * mp + 2) / 5 + 1)
        let month = Int(mp < 10 ? mp + 3 : mp - 9)
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
}
