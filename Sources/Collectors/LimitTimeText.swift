import Portable

/// Reset times as the agents write them in words, in their limit messages:
///
/// - Codex: "You've hit your usage limit; try again at Aug 8th, 2026 8:16 AM." (the machine's time zone)
/// - Claude Code: "resets Jan 30, 11:30am (Asia/Calcutta)", "resets 9:50pm (Asia/Saigon)", "resets Sep 15,
///   3am (Europe/Berlin)"; claude.ai: "Limits will reset at 9:30 AM."
///
/// A time zone in parentheses is looked up in the system's tz database; without one, the machine's. A time without a date is the next such time after the message; a date without a year the
/// next such date. Anything not understood is nil: the caller keeps "limit reached, no time".
enum LimitTimeText {
    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    /// Sunday first, as `CivilTime.weekday` counts.
    static let weekdays = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    /// The time in `text` after the first of `markers` found (case-insensitive), read as a moment
    /// after `after`.
    static func time(in text: String, after markers: [String], messageAt: Date, zones: Zones) -> Date? {
        guard let marker = markers.lazy.compactMap({ text.firstRange(ofCaseInsensitive: $0) }).first
        else { return nil }
        return parse(String(text[marker.upperBound...]), after: messageAt, zones: zones)
    }

    /// Parses `[Mon d[st|nd|rd|th][,] [yyyy][,] [at]] h[:mm][ ]am|pm [(Zone/Name)]` or `Weekday h[:mm]am|pm`
    /// at the start of `text`. A weekday is the next such day after the message (a weekly reset).
    static func parse(_ text: String, after reference: Date, zones: Zones) -> Date? {
        var words = Substring(text).split(whereSeparator: { " ,\u{00B7}".contains($0) }).map(String.init)
        var zone = zones.local
        // The zone, if any, is the first parenthesised word: as written, else with tz capitals.
        if let open = words.firstIndex(where: { $0.hasPrefix("(") }) {
            let name = words[open].trimming(charactersIn: "().;")
            guard let found = zones.named(name) ?? zones.named(properCase(name.lowercased())) else { return nil }
            zone = found
            words = Array(words[..<open])
        }
        words = words.map { $0.lowercased() }
        guard !words.isEmpty else { return nil }
        var month: Int?
        var day: Int?
        var year: Int?
        var weekday: Int?
        var index = 0
        if let found = weekdays.firstIndex(where: { words[0].hasPrefix($0) }), isWeekdayWord(words[0]) {
            weekday = found
            index = 1
        } else if let found = months.firstIndex(where: { words[0].hasPrefix($0) }) {
            month = found + 1
            guard words.count > 1 else { return nil }
            let digits = words[1].prefix { $0.isNumber }
            guard let value = Int(digits), (1...31).contains(value) else { return nil }
            day = value
            index = 2
            if index < words.count, words[index].count == 4, let value = Int(words[index]) {
                year = value
                index += 1
            }
        }
        // "Jul 27 at 4:30am".
        if index < words.count, words[index] == "at" { index += 1 }
        guard index < words.count else { return nil }
        // The time: "8:16" "am", "8:16am", "3am", "11:30am.".
        var clock = words[index].trimming(charactersIn: ".;")
        if index + 1 < words.count {
            let next = words[index + 1].trimming(charactersIn: ".;")
            if next == "am" || next == "pm" { clock += next }
        }
        let meridiem: String? = clock.hasSuffix("am") ? "am" : clock.hasSuffix("pm") ? "pm" : nil
        if let meridiem { clock.removeLast(meridiem.count) }
        let parts = clock.split(separator: ":")
        guard let hourValue = parts.first.flatMap({ Int($0) }),
            let minute = parts.count > 1 ? Int(parts[1]) : 0, (0...59).contains(minute)
        else { return nil }
        var hour = hourValue
        switch meridiem {
        case "am":
            guard (1...12).contains(hour) else { return nil }
            if hour == 12 { hour = 0 }
        case "pm":
            guard (1...12).contains(hour) else { return nil }
            if hour != 12 { hour += 12 }
        default:
            guard (0...23).contains(hour) else { return nil }
        }
        let now = zone.civilTime(at: reference)
        func moment(_ date: CivilTime) -> Date? {
            zone.date(of: CivilTime(year: date.year, month: date.month, day: date.day, hour: hour, minute: minute))
        }
        if let weekday {
            // The next such weekday, at that time, after the message: today's when still ahead.
            for offset in 0...7 {
                let date = now.adding(days: offset)
                guard date.weekday == weekday, let moment = moment(date), moment > reference else { continue }
                return moment
            }
            return nil
        }
        if let month, let day {
            if let year { return moment(CivilTime(year: year, month: month, day: day)) }
            // The next such date: this year's, else next year's.
            if let date = moment(CivilTime(year: now.year, month: month, day: day)), date > reference { return date }
            return moment(CivilTime(year: now.year + 1, month: month, day: day))
        }
        // The next such time: today's, else tomorrow's (the next calendar day, whatever the zone's offset).
        guard let today = moment(now) else { return nil }
        return today > reference ? today : moment(now.adding(days: 1))
    }

    /// "mon", "monday", "mon." and the like, but not a word that only begins like a day ("sunny").
    static func isWeekdayWord(_ word: String) -> Bool {
        let plain = word.trimming(charactersIn: ".")
        let names = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
        return names.contains(plain) || weekdays.contains(plain) || ["tues", "thur", "thurs"].contains(plain)
    }

    /// `asia/calcutta` as `Asia/Calcutta`, `america/new_york` as `America/New_York`.
    static func properCase(_ name: String) -> String {
        name.split(separator: "/").map { part in
            part.split(separator: "_").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: "_")
        }.joined(separator: "/")
    }
}

/// The reset time in Codex's limit message.
enum CodexLimitMessage {
    static func retryTime(in message: String, after at: Date, zones: Zones) -> Date? {
        LimitTimeText.time(in: message, after: ["try again at "], messageAt: at, zones: zones)
    }
}
