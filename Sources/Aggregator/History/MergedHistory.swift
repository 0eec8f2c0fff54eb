import Portable
import Snapshots

/// One account's history drawn from every device that observed it (the merge rules, "Merged history").
public struct MergedHistory: Sendable, Equatable {
    /// The session window's samples, oldest first, one per minute.
    public var session: [UsageSample]
    /// The weekly window's, the same way.
    public var weekly: [UsageSample]

    public init(session: [UsageSample] = [], weekly: [UsageSample] = []) {
        self.session = session
        self.weekly = weekly
    }

    /// The union of several devices' samples of one window: samples dated more than `maxSkew` after `now`
    /// dropped (a wrong clock), ordered by time, samples of the same minute one point with the higher
    /// used percent standing (usage only grows within a window).
    public static func union(_ lists: [[UsageSample]], now: Date, maxSkew: TimeInterval) -> [UsageSample] {
        let latest = now.addingTimeInterval(maxSkew)
        var all = lists.count == 1 ? lists[0] : lists.flatMap { $0 }
        all.removeAll { $0.at > latest || !$0.usedPercent.isFinite }
        all.sort { ($0.at, $0.usedPercent) < ($1.at, $1.usedPercent) }
        var result: [UsageSample] = []
        result.reserveCapacity(all.count)
        for sample in all {
            if let last = result.last, minute(of: last.at) == minute(of: sample.at) {
                if sample.usedPercent >= last.usedPercent { result[result.count - 1] = sample }
            } else {
                result.append(sample)
            }
        }
        return result
    }

    static func minute(of date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / 60).rounded(.down))
    }

    /// A point of a drawn line.
    public struct Point: Sendable, Equatable {
        public var at: Date
        public var usedPercent: Double
        /// Added where a reset lies between two samples (the line drops to 0 at the reset).
        public var isReset: Bool

        public init(at: Date, usedPercent: Double, isReset: Bool = false) {
            self.at = at
            self.usedPercent = usedPercent
            self.isReset = isReset
        }
    }

    /// The line through `samples` as the desktop app draws it: where a sample's `resetsAt` lies between it
    /// and the next sample and the next is lower, two points are added, the earlier value one second
    /// before the reset and 0 at the reset.
    public static func line(_ samples: [UsageSample]) -> [Point] {
        var points: [Point] = []
        points.reserveCapacity(samples.count + 8)
        for (index, sample) in samples.enumerated() {
            points.append(Point(at: sample.at, usedPercent: sample.usedPercent))
            guard index + 1 < samples.count, let reset = sample.resetsAt else { continue }
            let next = samples[index + 1]
            if sample.at < reset, reset <= next.at, next.usedPercent < sample.usedPercent {
                points.append(Point(at: reset.addingTimeInterval(-1), usedPercent: sample.usedPercent, isReset: true))
                points.append(Point(at: reset, usedPercent: 0, isReset: true))
            }
        }
        return points
    }
}
