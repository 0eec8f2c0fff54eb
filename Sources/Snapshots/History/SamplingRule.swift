import Portable

/// When a publisher keeps a sample of a window, and which of its samples go into a record (docs/format.md,
/// "History"): part of the record format, so that the history and the collectors' trails of what the
/// logs held (`CodexCollector.keep`) keep by the same rule.
///
/// Kept: a sample when the used percent moved by 1 point or more since the last sample, when the reset
/// time changed, or when 30 minutes have passed while figures keep arriving. Written: the last 14 days,
/// with a run of unchanged figures written as its first and last sample (the line drawn is the same),
/// and at most `budget` samples per window, so that a record stays small whatever the use: beyond it
/// the oldest part is thinned to coarser moves (2, 5, 10, 20 points), reset peaks always kept.
public enum SamplingRule {
    public static let minimumMove = 1.0
    public static let keepAlive: TimeInterval = 30 * 60
    /// How much history a publisher keeps and writes.
    public static let retention: TimeInterval = 14 * 86_400
    /// Providers move reset times by seconds between readings; a change under this is the same reset.
    public static let resetTolerance: TimeInterval = 300
    /// At most this many samples of one window go into a record: 200 compact samples are about 17 KiB.
    public static let budget = 200

    /// Adds `observation` to `samples` (oldest first) when the rule keeps it.
    ///
    /// - Returns: whether it was kept. An observation not newer than the last sample is never kept: the
    ///   same figures published again are not news.
    @discardableResult
    public static func record(_ observation: UsageSample, into samples: inout [UsageSample]) -> Bool {
        guard observation.usedPercent.isFinite else { return false }
        var observation = observation
        observation.usedPercent = min(100, max(0, observation.usedPercent))
        guard let last = samples.last else {
            samples.append(observation)
            return true
        }
        guard observation.at > last.at else { return false }
        let keep =
            abs(observation.usedPercent - last.usedPercent) >= minimumMove
            || !sameReset(observation.resetsAt, last.resetsAt)
            || observation.at.timeIntervalSince(last.at) >= keepAlive
        if keep { samples.append(observation) }
        return keep
    }

    /// Whether two reset times are the same reset (both unknown, or within `resetTolerance`).
    public static func sameReset(_ a: Date?, _ b: Date?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (let a?, let b?): return abs(a.timeIntervalSince(b)) < resetTolerance
        default: return false
        }
    }

    /// The samples of the last `retention` before `now`.
    public static func pruned(_ samples: [UsageSample], now: Date) -> [UsageSample] {
        let oldest = now.addingTimeInterval(-retention)
        guard let first = samples.firstIndex(where: { $0.at >= oldest }) else { return [] }
        return Array(samples[first...])
    }

    /// What goes into a record: the last 14 days, runs of unchanged figures as their ends, at most `budget`.
    public static func forRecord(_ samples: [UsageSample], now: Date, budget: Int = budget) -> [UsageSample] {
        var kept = collapsingRuns(pruned(samples, now: now))
        for quantum in [2.0, 5, 10, 20] where kept.count > budget {
            kept = thinned(kept, quantum: quantum)
        }
        return kept.count > budget ? Array(kept.suffix(budget)) : kept
    }

    /// Drops samples whose neighbours on both sides have the same figures: only the run's ends remain.
    static func collapsingRuns(_ samples: [UsageSample]) -> [UsageSample] {
        guard samples.count > 2 else { return samples }
        var result = [samples[0]]
        for index in 1..<(samples.count - 1) {
            let sample = samples[index]
            let same = { (other: UsageSample) in
                other.usedPercent == sample.usedPercent && sameReset(other.resetsAt, sample.resetsAt)
            }
            if !(same(samples[index - 1]) && same(samples[index + 1])) { result.append(sample) }
        }
        result.append(samples[samples.count - 1])
        return result
    }

    /// Keeps a sample that moved `quantum` points from the last kept one, starts or ends a reset period
    /// (the peak before a reset is what a chart must show), or is the newest.
    static func thinned(_ samples: [UsageSample], quantum: Double) -> [UsageSample] {
        guard samples.count > 2 else { return samples }
        var result = [samples[0]]
        for index in 1..<samples.count {
            let sample = samples[index]
            let last = result[result.count - 1]
            let isNewest = index == samples.count - 1
            let startsReset = !sameReset(sample.resetsAt, samples[index - 1].resetsAt)
            let endsReset = !isNewest && !sameReset(sample.resetsAt, samples[index + 1].resetsAt)
            if isNewest || startsReset || endsReset || abs(sample.usedPercent - last.usedPercent) >= quantum {
                result.append(sample)
            }
        }
        return result
    }
}
