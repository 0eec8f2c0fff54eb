import Portable
import Snapshots

/// Whether a window is being used faster or slower than evenly, and whether it lasts until its reset
/// (the merge rules, "Pace"): the linear projection the desktop app this product follows shows.
public struct Pace: Sendable, Equatable {
    public enum Stage: String, Sendable, CaseIterable {
        case onTrack, slightlyAhead, slightlyBehind, ahead, behind, farAhead, farBehind
    }

    /// What even use would have used by now.
    public var expectedUsedPercent: Double
    /// Used minus expected: positive is using faster than even ("ahead").
    public var deltaPercent: Double
    public var stage: Stage
    /// Seconds until the window runs out at the rate so far; nil when nothing has been used.
    public var etaSeconds: Double?
    /// Whether the window lasts until its reset at that rate.
    public var lastsUntilReset: Bool

    /// Before this fraction of a window has elapsed, a projection is noise: no pace.
    public static let minimumElapsedFraction = 0.03

    public init(expectedUsedPercent: Double, deltaPercent: Double, etaSeconds: Double?, lastsUntilReset: Bool) {
        self.expectedUsedPercent = expectedUsedPercent
        self.deltaPercent = deltaPercent
        self.etaSeconds = etaSeconds
        self.lastsUntilReset = lastsUntilReset
        stage = Self.stage(of: deltaPercent)
    }

    /// The pace of a window at `now`; nil without a window length or a reset time, before 3 % of the
    /// window has elapsed, or when the reset is more than one window away (or already past: the figures
    /// are of a window that is over).
    public init?(usedPercent: Double, windowMinutes: Int?, resetsAt: Date?, now: Date) {
        guard let windowMinutes, windowMinutes > 0, let resetsAt else { return nil }
        let duration = Double(windowMinutes) * 60
        let untilReset = resetsAt.timeIntervalSince(now)
        guard untilReset > 0, untilReset <= duration else { return nil }
        let elapsed = duration - untilReset
        guard elapsed >= duration * Self.minimumElapsedFraction else { return nil }
        let used = min(100, max(0, usedPercent))
        let expected = elapsed / duration * 100
        let rate = used / elapsed
        let eta: Double? = rate > 0 ? (100 - used) / rate : nil
        self.init(
            expectedUsedPercent: expected, deltaPercent: used - expected, etaSeconds: eta,
            lastsUntilReset: eta.map { $0 >= untilReset } ?? true)
    }

    /// The stage of a difference from even use: within 2 points on track, then 6, 12 and beyond.
    public static func stage(of delta: Double) -> Stage {
        let size = abs(delta)
        let ahead = delta > 0
        if size <= 2 { return .onTrack }
        if size <= 6 { return ahead ? .slightlyAhead : .slightlyBehind }
        if size <= 12 { return ahead ? .ahead : .behind }
        return ahead ? .farAhead : .farBehind
    }
}

extension WindowStatus {
    /// This window's pace at `now` (nil where the merge rules gives none).
    public func pace(at now: Date) -> Pace? {
        Pace(usedPercent: usedPercent, windowMinutes: windowMinutes, resetsAt: resetsAt, now: now)
    }
}
