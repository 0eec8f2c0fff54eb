/// A time zone as a POSIX `TZ` string (`PST8PDT,M3.2.0,M11.1.0`, `IST-5:30`, `<+0330>-3:30`): the form a
/// TZif file's footer gives for times after its last transition (RFC 8536 section 3.3), and the form
/// `TZ` may take itself.
///
/// POSIX offsets count hours west of UTC; `offsetEast` here is the usual seconds east. A DST part without
/// rules follows the US rules (`M3.2.0,M11.1.0`), as glibc does when it has no `posixrules` file.
public struct PosixZoneRule: Sendable, Equatable {
    /// Standard time's offset, seconds east of UTC.
    public var standardOffset: Int
    /// Daylight time: its offset and the two moments that start and end it each year.
    public var daylight: Daylight?

    public struct Daylight: Sendable, Equatable {
        public var offset: Int
        public var start: Moment
        public var end: Moment
    }

    /// A moment of the year: a day by rule, and a time of that day in the local time then in force
    /// (-167 to 167 hours, RFC 8536's extension of POSIX's 0-24).
    public struct Moment: Sendable, Equatable {
        public var day: Day
        public var seconds: Int

        public init(day: Day, seconds: Int) {
            self.day = day
            self.seconds = seconds
        }
    }

    public enum Day: Sendable, Equatable {
        /// `Jn`: day 1-365, February 29 never counted.
        case julian(Int)
        /// `n`: day 0-365, February 29 counted in leap years.
        case zeroBased(Int)
        /// `Mm.w.d`: month 1-12, week 1-5 (5 is the last), weekday 0 (Sunday)-6.
        case monthWeekDay(month: Int, week: Int, weekday: Int)
    }

    /// Parses a whole POSIX `TZ` string; nil for anything else.
    public static func parse(_ text: String) -> PosixZoneRule? {
        var reader = Reader(Array(text.utf8))
        guard reader.name(), let standard = reader.offset(hoursUpTo: 24) else { return nil }
        var rule = PosixZoneRule(standardOffset: -standard)
        if reader.atEnd { return rule }
        guard reader.name() else { return nil }
        var daylightOffset = -standard + 3600
        if !reader.atEnd && reader.peek != UInt8(ascii: ",") {
            guard let offset = reader.offset(hoursUpTo: 24) else { return nil }
            daylightOffset = -offset
        }
        let start: Moment
        let end: Moment
        if reader.atEnd {
            start = Moment(day: .monthWeekDay(month: 3, week: 2, weekday: 0), seconds: 7200)
            end = Moment(day: .monthWeekDay(month: 11, week: 1, weekday: 0), seconds: 7200)
        } else {
            guard reader.take(UInt8(ascii: ",")), let first = reader.moment(), reader.take(UInt8(ascii: ",")),
                let second = reader.moment(), reader.atEnd
            else { return nil }
            (start, end) = (first, second)
        }
        rule.daylight = Daylight(offset: daylightOffset, start: start, end: end)
        return rule
    }

    /// The offset east of UTC in force at `seconds` since the epoch (UTC).
    public func offset(atUTC seconds: Int64) -> Int {
        guard let daylight else { return standardOffset }
        // The year as standard time reads it; the rule's two moments of that year, in UTC.
        let year = CivilTime(secondsSinceEpoch: seconds + Int64(standardOffset)).year
        let start = Self.utc(of: daylight.start, year: year, offset: standardOffset)
        let end = Self.utc(of: daylight.end, year: year, offset: daylight.offset)
        let inDaylight = start < end ? (start <= seconds && seconds < end) : !(end <= seconds && seconds < start)
        return inDaylight ? daylight.offset : standardOffset
    }

    /// The UTC second of `moment` in `year`, its time read in a local time `offset` east of UTC.
    static func utc(of moment: Moment, year: Int, offset: Int) -> Int64 {
        let first = CivilTime.days(year: year, month: 1, day: 1)
        let day: Int64
        switch moment.day {
        case .julian(let number):
            let leapDay = CivilTime.isLeap(year) && number >= 60 ? 1 : 0
            day = first + Int64(number - 1 + leapDay)
        case .zeroBased(let number):
            day = first + Int64(number)
        case .monthWeekDay(let month, let week, let weekday):
            let monthStart = CivilTime.days(year: year, month: month, day: 1)
            let firstMatch = (weekday - CivilTime.weekday(ofDays: monthStart) + 7) % 7
            var dayOfMonth = firstMatch + (week - 1) * 7
            let length = CivilTime.daysIn(month: month, year: year)
            while dayOfMonth >= length { dayOfMonth -= 7 }
            day = monthStart + Int64(dayOfMonth)
        }
        return day * 86_400 + Int64(moment.seconds) - Int64(offset)
    }

    /// A cursor over a `TZ` string's bytes.
    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index == bytes.count }
        var peek: UInt8? { atEnd ? nil : bytes[index] }

        mutating func take(_ byte: UInt8) -> Bool {
            guard peek == byte else { return false }
            index += 1
            return true
        }

        /// A zone abbreviation: three or more letters, or `<...>` of letters, digits, `+` and `-`.
        mutating func name() -> Bool {
            if take(UInt8(ascii: "<")) {
                let start = index
                while let byte = peek,
                    Self.isAlphanumeric(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
                {
                    index += 1
                }
                return index - start >= 3 && take(UInt8(ascii: ">"))
            }
            let start = index
            while let byte = peek, Self.isLetter(byte) { index += 1 }
            return index - start >= 3
        }

        /// `[+-]hh[:mm[:ss]]` in seconds (POSIX's sign: positive is west).
        mutating func offset(hoursUpTo limit: Int) -> Int? {
            var sign = 1
            if take(UInt8(ascii: "-")) { sign = -1 } else { _ = take(UInt8(ascii: "+")) }
            guard let hours = number(maxDigits: 3), hours <= limit else { return nil }
            var seconds = hours * 3600
            if take(UInt8(ascii: ":")) {
                guard let minutes = number(maxDigits: 2), minutes < 60 else { return nil }
                seconds += minutes * 60
                if take(UInt8(ascii: ":")) {
                    guard let extra = number(maxDigits: 2), extra < 60 else { return nil }
                    seconds += extra
                }
            }
            return sign * seconds
        }

        /// `Jn`, `n` or `Mm.w.d`, then `/time` (default 02:00:00).
        mutating func moment() -> Moment? {
            let day: Day
            if take(UInt8(ascii: "J")) {
                guard let number = number(maxDigits: 3), (1...365).contains(number) else { return nil }
                day = .julian(number)
            } else if take(UInt8(ascii: "M")) {
                guard let month = number(maxDigits: 2), (1...12).contains(month), take(UInt8(ascii: ".")),
                    let week = number(maxDigits: 1), (1...5).contains(week), take(UInt8(ascii: ".")),
                    let weekday = number(maxDigits: 1), (0...6).contains(weekday)
                else { return nil }
                day = .monthWeekDay(month: month, week: week, weekday: weekday)
            } else {
                guard let number = number(maxDigits: 3), (0...365).contains(number) else { return nil }
                day = .zeroBased(number)
            }
            var seconds = 7200
            if take(UInt8(ascii: "/")) {
                guard let time = offset(hoursUpTo: 167) else { return nil }
                seconds = time
            }
            return Moment(day: day, seconds: seconds)
        }

        mutating func number(maxDigits: Int) -> Int? {
            var value = 0
            var digits = 0
            while let byte = peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), digits < maxDigits {
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
                index += 1
            }
            return digits > 0 ? value : nil
        }

        static func isLetter(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
        }

        static func isAlphanumeric(_ byte: UInt8) -> Bool {
            isLetter(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
    }
}
