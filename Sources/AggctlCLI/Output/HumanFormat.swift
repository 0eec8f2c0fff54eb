import Aggregator
import Portable

/// Short forms of durations and percentages for tables.
enum HumanFormat {
    /// `4m ago`, `2h 10m ago`, `3d 2h ago`, `just now`; a date in the future reads `in 5m`.
    static func ago(_ date: Date, now: Date) -> String {
        let seconds = now.timeIntervalSince(date)
        if seconds < 0 { return "in " + DurationText.short(-seconds) }
        if seconds < 60 { return "just now" }
        return DurationText.short(seconds) + " ago"
    }

    /// `in 2h 10m`, or `due` for a time already past.
    static func until(_ date: Date, now: Date) -> String {
        let seconds = date.timeIntervalSince(now)
        if seconds <= 0 { return "due" }
        return "in " + DurationText.short(seconds)
    }

    /// Remaining percent as people read it: `0%` only when used up, `<1%` for a sliver, else whole percent
    /// rounded down, so a table never promises more than is left.
    static func percent(_ remaining: Double) -> String {
        if remaining <= WindowLevel.depletedThreshold { return "0%" }
        if remaining < 1 { return "<1%" }
        return "\(Int(remaining.rounded(.down)))%"
    }

    /// `on track`, `12% ahead, runs out in 1h 30m`, `8% behind, lasts until reset`.
    static func pace(_ pace: Pace) -> String {
        let points = Int(abs(pace.deltaPercent).rounded())
        let lead =
            switch pace.stage {
            case .onTrack: "on track"
            case .slightlyAhead, .ahead, .farAhead: "\(points)% ahead"
            case .slightlyBehind, .behind, .farBehind: "\(points)% behind"
            }
        if !pace.lastsUntilReset, let eta = pace.etaSeconds {
            return lead + (eta <= 0 ? ", used up" : ", runs out in " + DurationText.short(eta))
        }
        return pace.stage == .onTrack ? lead : lead + ", lasts until reset"
    }

    /// A sparkline of used percents (0...100), one character each, blank where a value is missing: Unicode
    /// blocks, or plain ASCII for a terminal that shows only that (`TERM=dumb`).
    static func sparkline(_ values: [Double?], ascii: Bool) -> String {
        // Written as UTF-8 bytes: appending scalars to a string one by one cost 700 instructions each.
        var line: [UInt8] = []
        line.reserveCapacity(values.count * 3)
        for value in values {
            // Nothing known, or nothing sensible (a number that is not finite), is a gap.
            guard let value, value.isFinite else {
                line.append(UInt8(ascii: " "))
                continue
            }
            // Clamped as a double: converting a huge one to Int would trap.
            let step = Int(min(7, max(0, (value / 100 * 8).rounded(.down))))
            if ascii {
                line.append(asciiLevels[step])
            } else {
                // U+2581 LOWER ONE EIGHTH BLOCK and the seven after it, in UTF-8.
                line.append(0xE2)
                line.append(0x96)
                line.append(0x81 + UInt8(step))
            }
        }
        return String(decoding: line, as: UTF8.self)
    }

    /// The eight levels of a plain ASCII sparkline, lowest first.
    private static let asciiLevels = Array("_.-:=+*#".utf8)

    static func color(for level: WindowLevel) -> ANSIColor {
        switch level {
        case .ok: return .green
        case .warning: return .yellow
        case .critical, .depleted: return .red
        }
    }
}
