import Portable
import Snapshots

/// Where the weekly window is heading, judged from how earlier weeks of the same account went.
///
/// The linear pace assumes the rest of the week goes like its start; people's weeks are not like that
/// (heavy on Monday, quiet at the weekend). Following the desktop app this product follows: each earlier
/// week (samples grouped by their reset time) becomes an hourly curve from its start, made monotone
/// (usage only grows within a window); this week's figure is carried forward along each past curve from
/// the same hour; the weeks are weighted by recency, `exp(-age / 3 weeks)`; and the result is blended
/// toward the linear projection by how much evidence there is, `lambda = clamp((nEff - 2) / 6, 0, 1)`
/// with `nEff = (sum w)^2 / sum w^2`, so that three weeks move it a little and eight or more decide it.
/// It is never above the linear projection: history may only say that a fast start slows down. A chance
/// of running out, `(sum w_runout + 0.5) / (sum w + 1)`, is given from five weeks. No forecast with
/// fewer than three usable weeks (a week is usable when its samples reach 70 % of it).
public struct WeeklyForecast: Sendable, Equatable {
    /// How many earlier weeks it was drawn from.
    public var weeks: Int
    /// The used percent the window is expected to end its week with (may exceed 100: it runs out).
    public var projectedEndPercent: Double
    /// Seconds from now until it runs out, or nil when it lasts until the reset.
    public var etaSeconds: Double?
    /// The weight of history against the linear projection, 0...1.
    public var historyWeight: Double
    /// From five weeks: the chance of running out before the reset.
    public var runOutChance: Double?

    public static let minimumWeeks = 3
    static let week: TimeInterval = 7 * 86_400

    public var lastsUntilReset: Bool { etaSeconds == nil }

    /// One line for people: `Forecast from 4 past weeks: ends near 78% used, lasts until reset`.
    public var summary: String {
        var text = "Forecast from \(weeks) past weeks: "
        if let etaSeconds {
            text += "runs out in \(DurationText.short(etaSeconds))"
        } else {
            text += "ends near \(Int(projectedEndPercent.rounded()))% used, lasts until reset"
        }
        if let runOutChance { text += " (chance of running out \(Int((runOutChance * 100).rounded()))%)" }
        return text
    }

    /// The forecast of the window `current` (a weekly window with `resetsAt`) from the merged weekly
    /// `history` of its account; nil without enough earlier weeks or without a pace to improve on.
    public static func make(history: [UsageSample], current: WindowStatus, now: Date) -> WeeklyForecast? {
        guard let resetsAt = current.resetsAt, let minutes = current.windowMinutes, minutes == 10080,
            current.pace(at: now) != nil
        else { return nil }
        let start = resetsAt.addingTimeInterval(-week)
        let elapsedHours = now.timeIntervalSince(start) / 3600
        let used = min(100, max(0, current.usedPercent))
        let past = pastWeeks(history, before: start)
        guard past.count >= minimumWeeks else { return nil }

        let weights = past.map { exp(-resetsAt.timeIntervalSince($0.reset) / week / 3) }
        let total = weights.reduce(0, +)
        let effective = total * total / weights.reduce(0) { $0 + $1 * $1 }
        let lambda = min(1, max(0, (effective - 2) / 6))
        let rate = used / elapsedHours

        // This week's figure carried along each past week from the same hour, hour by hour to the reset.
        func projected(at hour: Double) -> Double {
            let linear = used + rate * (hour - elapsedHours)
            var historical = 0.0
            for (index, week) in past.enumerated() {
                historical += weights[index] * (used + week.value(at: hour) - week.value(at: elapsedHours))
            }
            return min(linear, lambda * historical / total + (1 - lambda) * linear)
        }
        var eta: Double?
        var hour = elapsedHours
        while hour < 168 {
            let next = min(168, (hour + 1).rounded(.down))
            if projected(at: next) >= 100 {
                // Within the hour, linearly.
                let before = projected(at: hour)
                let after = projected(at: next)
                let fraction = after > before ? (100 - before) / (after - before) : 0
                eta = (hour + fraction * (next - hour) - elapsedHours) * 3600
                break
            }
            hour = next
        }
        var chance: Double?
        if past.count >= 5 {
            var runOut = 0.0
            for (index, week) in past.enumerated()
            where used + week.value(at: 168) - week.value(at: elapsedHours) >= 100 {
                runOut += weights[index]
            }
            chance = (runOut + 0.5) / (total + 1)
        }
        return WeeklyForecast(
            weeks: past.count, projectedEndPercent: projected(at: 168), etaSeconds: eta, historyWeight: lambda,
            runOutChance: chance)
    }

    /// One earlier week as an hourly, monotone curve of used percent from its start.
    struct PastWeek {
        var reset: Date
        /// Used percent at each whole hour 0...168.
        var hourly: [Double]

        /// Between whole hours, linearly.
        func value(at hour: Double) -> Double {
            let clamped = min(168, max(0, hour))
            let low = Int(clamped.rounded(.down))
            guard low < 168 else { return hourly[168] }
            return hourly[low] + (hourly[low + 1] - hourly[low]) * (clamped - Double(low))
        }
    }

    /// The weeks of `history` that ended by `start` (this week's start), each with samples reaching 70 %
    /// of it; a week starts at 0 at its beginning and holds its last figure after its last sample.
    static func pastWeeks(_ history: [UsageSample], before start: Date) -> [PastWeek] {
        var groups: [(reset: Date, samples: [UsageSample])] = []
        for sample in history {
            guard let reset = sample.resetsAt, reset <= start.addingTimeInterval(SamplingRule.resetTolerance),
                sample.at <= reset, sample.at >= reset.addingTimeInterval(-week)
            else { continue }
            if let index = groups.firstIndex(where: { SamplingRule.sameReset($0.reset, reset) }) {
                groups[index].samples.append(sample)
            } else {
                groups.append((reset, [sample]))
            }
        }
        return groups.compactMap { group in
            let weekStart = group.reset.addingTimeInterval(-week)
            let points = group.samples.sorted { $0.at < $1.at }.map {
                (hour: $0.at.timeIntervalSince(weekStart) / 3600, used: $0.usedPercent)
            }
            guard let last = points.last, last.hour >= 168 * 0.7 else { return nil }
            var hourly = [Double](repeating: 0, count: 169)
            var previous = (hour: 0.0, used: 0.0)
            var next = 0
            var peak = 0.0
            for hour in 0...168 {
                let h = Double(hour)
                while next < points.count, points[next].hour <= h {
                    previous = points[next]
                    next += 1
                }
                var value = previous.used
                if next < points.count {
                    let upcoming = points[next]
                    value += (upcoming.used - previous.used) * (h - previous.hour) / (upcoming.hour - previous.hour)
                }
                peak = max(peak, value)
                hourly[hour] = peak
            }
            return PastWeek(reset: group.reset, hourly: hourly)
        }.sorted { $0.reset < $1.reset }
    }
}
