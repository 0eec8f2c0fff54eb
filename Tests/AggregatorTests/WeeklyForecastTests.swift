import Aggregator
import Foundation
import Snapshots
import TestSupport
import Testing

/// The weekly forecast from earlier weeks, on a history whose outcome is known: every week of this
/// account starts heavy (60 % in two days) and then goes quiet (15 % more in the other five).
struct WeeklyForecastTests {
    let week: TimeInterval = 7 * 86_400
    /// This week's reset; this week started a week before it.
    let reset = Records.date("2026-12-07T00:00:00Z")

    /// The known shape of a week: used percent `hour` hours after its start.
    func usage(atHour hour: Double) -> Double {
        hour <= 48 ? 60 * hour / 48 : 60 + 15 * (hour - 48) / 120
    }

    /// `weeks` earlier weeks of that shape, sampled every 2 hours, and this week up to `hour`.
    func history(weeks: Int, upTo hour: Double) -> [UsageSample] {
        var samples: [UsageSample] = []
        for age in stride(from: weeks, through: 0, by: -1) {
            let weekReset = reset.addingTimeInterval(-Double(age) * week)
            let start = weekReset.addingTimeInterval(-week)
            for h in stride(from: 0.0, through: age == 0 ? hour : 167, by: 2) {
                samples.append(
                    UsageSample(
                        at: start.addingTimeInterval(h * 3600), usedPercent: usage(atHour: h), resetsAt: weekReset))
            }
        }
        return samples
    }

    func current(atHour hour: Double) -> (WindowStatus, Date) {
        let now = reset.addingTimeInterval(-week + hour * 3600)
        return (WindowStatus(UsageWindow(usedPercent: usage(atHour: hour), windowMinutes: 10080, resetsAt: reset)), now)
    }

    @Test("it beats the linear projection on a history of front-loaded weeks")
    func beatsLinear() throws {
        let (window, now) = current(atHour: 48)
        let linear = try #require(window.pace(at: now))
        let forecast = try #require(
            WeeklyForecast.make(history: history(weeks: 6, upTo: 48), current: window, now: now))
        #expect(forecast.weeks == 6)
        // The week is known to end at 75 %. Linear says 210 % and runs out in 32 hours.
        let linearEnd = 60.0 / 48 * 168
        #expect(!linear.lastsUntilReset)
        #expect(abs(forecast.projectedEndPercent - 75) < abs(linearEnd - 75))
        #expect(forecast.projectedEndPercent >= 75 && forecast.projectedEndPercent <= linearEnd)
        let linearETA = try #require(linear.etaSeconds)
        #expect((forecast.etaSeconds ?? .infinity) > linearETA)
        #expect(forecast.historyWeight > 0 && forecast.historyWeight < 1)
        #expect(forecast.runOutChance.map { $0 < 0.5 } == true)
    }

    @Test("more weeks weigh more: eight weeks trust history more than three")
    func evidenceGrows() throws {
        let (window, now) = current(atHour: 48)
        let three = try #require(WeeklyForecast.make(history: history(weeks: 3, upTo: 48), current: window, now: now))
        let eight = try #require(WeeklyForecast.make(history: history(weeks: 8, upTo: 48), current: window, now: now))
        #expect(eight.historyWeight > three.historyWeight)
        #expect(abs(eight.projectedEndPercent - 75) < abs(three.projectedEndPercent - 75))
        #expect(three.runOutChance == nil)
    }

    @Test("no forecast from fewer than three earlier weeks, or from weeks seen too little")
    func needsWeeks() {
        let (window, now) = current(atHour: 48)
        #expect(WeeklyForecast.make(history: history(weeks: 2, upTo: 48), current: window, now: now) == nil)
        // Weeks whose samples stop half way are not usable.
        let partial = history(weeks: 4, upTo: 48).filter { sample in
            guard let reset = sample.resetsAt, reset != self.reset else { return true }
            return sample.at < reset.addingTimeInterval(-week / 2)
        }
        #expect(WeeklyForecast.make(history: partial, current: window, now: now) == nil)
    }

    @Test("never above the linear projection: a slow start does not become a run-out")
    func neverAboveLinear() throws {
        // This week used 5 % in two days; earlier weeks used 60 % by then.
        let now = reset.addingTimeInterval(-week + 48 * 3600)
        let window = WindowStatus(UsageWindow(usedPercent: 5, windowMinutes: 10080, resetsAt: reset))
        let forecast = try #require(WeeklyForecast.make(history: history(weeks: 6, upTo: 0), current: window, now: now))
        #expect(forecast.projectedEndPercent <= 5.0 / 48 * 168 + 1e-9)
        #expect(forecast.lastsUntilReset)
    }
}
