import Aggregator
import Foundation
import TestSupport
import Testing

struct PaceTests {
    let now = Records.date("2026-11-30T12:00:00Z")

    /// A weekly window with `elapsedHours` of its week gone.
    private func weekly(used: Double, elapsedHours: Double) -> Pace? {
        Pace(
            usedPercent: used, windowMinutes: 10080,
            resetsAt: now.addingTimeInterval((168 - elapsedHours) * 3600), now: now)
    }

    @Test("half the week gone and half used is on track and lasts")
    func evenUseIsOnTrack() throws {
        let pace = try #require(weekly(used: 50, elapsedHours: 84))
        #expect(pace.expectedUsedPercent == 50)
        #expect(pace.deltaPercent == 0)
        #expect(pace.stage == .onTrack)
        #expect(abs(try #require(pace.etaSeconds) - 84 * 3600) < 1e-6)
        #expect(pace.lastsUntilReset)
    }

    @Test("using faster than even is ahead and runs out before the reset, with the time it runs out")
    func fastUseRunsOut() throws {
        // A day of seven gone, 40 % used: 40 % a day, 60 % left lasts 1.5 days, the reset is 6 days away.
        let pace = try #require(weekly(used: 40, elapsedHours: 24))
        #expect(abs(pace.expectedUsedPercent - 100.0 / 7) < 1e-9)
        #expect(pace.stage == .farAhead)
        #expect(abs(try #require(pace.etaSeconds) - 36 * 3600) < 1e-6)
        #expect(!pace.lastsUntilReset)
    }

    @Test("stages by the size of the difference: 2, 6 and 12 points")
    func stages() {
        #expect(Pace.stage(of: 2) == .onTrack)
        #expect(Pace.stage(of: -2) == .onTrack)
        #expect(Pace.stage(of: 2.1) == .slightlyAhead)
        #expect(Pace.stage(of: -6) == .slightlyBehind)
        #expect(Pace.stage(of: 6.5) == .ahead)
        #expect(Pace.stage(of: -12) == .behind)
        #expect(Pace.stage(of: 12.01) == .farAhead)
        #expect(Pace.stage(of: -40) == .farBehind)
    }

    @Test("no pace before 3 % of the window, without a reset or a length, or with a reset beyond one window")
    func guards() {
        #expect(weekly(used: 10, elapsedHours: 168 * 0.029) == nil)
        #expect(weekly(used: 10, elapsedHours: 168 * 0.031) != nil)
        #expect(Pace(usedPercent: 10, windowMinutes: 10080, resetsAt: nil, now: now) == nil)
        #expect(Pace(usedPercent: 10, windowMinutes: nil, resetsAt: now.addingTimeInterval(3600), now: now) == nil)
        #expect(Pace(usedPercent: 10, windowMinutes: 0, resetsAt: now.addingTimeInterval(3600), now: now) == nil)
        // A reset more than a window away is not this window's; one already past belongs to a window over.
        #expect(Pace(usedPercent: 10, windowMinutes: 300, resetsAt: now.addingTimeInterval(301 * 60), now: now) == nil)
        #expect(Pace(usedPercent: 10, windowMinutes: 300, resetsAt: now.addingTimeInterval(-60), now: now) == nil)
    }

    @Test("nothing used never runs out; used up runs out now; figures outside 0...100 are clamped")
    func edges() throws {
        let idle = try #require(weekly(used: 0, elapsedHours: 50))
        #expect(idle.etaSeconds == nil)
        #expect(idle.lastsUntilReset)
        #expect(idle.stage == .farBehind)
        let spent = try #require(weekly(used: 130, elapsedHours: 50))
        #expect(spent.etaSeconds == 0)
        #expect(!spent.lastsUntilReset)
        let expected: Double = 50.0 / 168 * 100
        #expect(spent.deltaPercent == 100 - expected)
    }
}
