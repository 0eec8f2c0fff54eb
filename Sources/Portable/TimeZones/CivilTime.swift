/// A wall-clock reading in the proleptic Gregorian calendar, and the day arithmetic time zones need.
///
/// FoundationEssentials on Linux has no calendar of time zones (its `TimeZone(identifier:)` is nil for
/// every name), so local times are computed here: whole days since 1970-01-01 with the well-known
/// civil-from-days conversion, seconds within the day apart.
public struct CivilTime: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int

    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// The reading `seconds` after 1970-01-01T00:00:00 on the same clock.
    public init(secondsSinceEpoch seconds: Int64) {
        let (days, within) = Self.floorDivide(seconds, 86_400)
        (year, month, day) = Self.civil(fromDays: days)
        hour = Int(within / 3600)
        minute = Int(within % 3600 / 60)
        second = Int(within % 60)
    }

    /// Seconds from 1970-01-01T00:00:00 on the same clock to this reading (fields taken as they are:
    /// a day past the month's end runs into the next month).
    public var secondsSinceEpoch: Int64 {
        Self.days(year: year, month: month, day: day) * 86_400 + Int64(hour) * 3600 + Int64(minute) * 60
            + Int64(second)
    }

    /// Whether the fields name a real date and time (a 31st of a 30-day month does not).
    public var isValid: Bool {
        (1...12).contains(month) && (1...Self.daysIn(month: month, year: year)).contains(day)
            && (0...23).contains(hour) && (0...59).contains(minute) && (0...59).contains(second)
    }

    /// 0 for Sunday through 6 for Saturday.
    public var weekday: Int {
        Self.weekday(ofDays: Self.days(year: year, month: month, day: day))
    }

    /// The same clock time `count` days later (calendar days, whatever a zone's offset does meanwhile).
    public func adding(days count: Int) -> CivilTime {
        var moved = self
        (moved.year, moved.month, moved.day) = Self.civil(
            fromDays: Self.days(year: year, month: month, day: day) + Int64(count))
        return moved
    }

    /// The same day of the month `count` months later, clamped to the month's last day (Jan 31 + 1 is
    /// Feb 28 or 29).
    public func adding(months count: Int) -> CivilTime {
        var moved = self
        let index = year * 12 + (month - 1) + count
        moved.year = Int(Self.floorDivide(Int64(index), 12).quotient)
        moved.month = index - moved.year * 12 + 1
        moved.day = min(day, Self.daysIn(month: moved.month, year: moved.year))
        return moved
    }

    public var description: String {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(hour)):\(two(minute)):\(two(second))"
    }

    // MARK: Day arithmetic

    public static func isLeap(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the date (negative before it); `month` 1-12.
    public static func days(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = floorDivide(y, 400).quotient
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01.
    public static func civil(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097).quotient
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }

    /// 0 for Sunday through 6 for Saturday (1970-01-01 was a Thursday).
    public static func weekday(ofDays days: Int64) -> Int {
        Int(floorDivide(days + 4, 7).remainder)
    }

    /// Division rounding toward minus infinity, with a remainder that is never negative.
    static func floorDivide(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        var quotient = value / divisor
        var remainder = value % divisor
        if remainder < 0 {
            quotient -= 1
            remainder += divisor
        }
        return (quotient, remainder)
    }
}
