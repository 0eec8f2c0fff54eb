import Portable
import Snapshots

/// The rate limits each `token_count` event reported, thinned: what the logs already hold of the windows'
/// history. The first publish on a machine hands them to the history (as a `--from` input's samples), so
/// the first report and dashboard draw the days the logs cover, not a dot.
extension CodexCollector {
    struct LimitSample: Equatable {
        var at: Date
        var session: UsageWindow?
        var weekly: UsageWindow?
    }

    /// At most this many samples a file keeps (a week of events every 5 minutes is 2016).
    static let trailBudget = 2000

    /// Appends `sample` unless it says nothing new by the history's own rule (`SamplingRule`): neither
    /// window moved a point or changed its reset, within half an hour of the last one kept.
    static func keep(_ sample: LimitSample, in trail: inout [LimitSample]) {
        if let last = trail.last {
            guard sample.at > last.at else { return }
            func moved(_ a: UsageWindow?, _ b: UsageWindow?) -> Bool {
                switch (a, b) {
                case (nil, nil): return false
                case (let a?, let b?):
                    return abs(a.usedPercent - b.usedPercent) >= SamplingRule.minimumMove
                        || !SamplingRule.sameReset(a.resetsAt, b.resetsAt)
                default: return true
                }
            }
            let quiet =
                !moved(sample.session, last.session) && !moved(sample.weekly, last.weekly)
                && sample.at.timeIntervalSince(last.at) < SamplingRule.keepAlive
            if quiet { return }
        }
        trail.append(sample)
        // Trimmed in halves, not one by one: a shift per append made a cold read of 300 files 3x slower.
        if trail.count >= 2 * trailBudget { trail.removeFirst(trail.count - trailBudget) }
    }

    /// The newest `trailBudget` samples of `trail`.
    static func trimmed(_ trail: [LimitSample]) -> [LimitSample] {
        trail.count > trailBudget ? Array(trail.suffix(trailBudget)) : trail
    }

    /// Every file's trail in time order, thinned as one.
    static func combined(_ trails: [[LimitSample]]) -> [LimitSample] {
        var all: [LimitSample] = []
        for sample in trails.joined().sorted(by: { $0.at < $1.at }) { keep(sample, in: &all) }
        return trimmed(all)
    }

    /// The trail as the record's samples of its two windows.
    static func samples(_ trail: [LimitSample]) -> (session: [UsageSample]?, weekly: [UsageSample]?) {
        let session = trail.compactMap { sample in
            sample.session.map { UsageSample(at: sample.at, usedPercent: $0.usedPercent, resetsAt: $0.resetsAt) }
        }
        let weekly = trail.compactMap { sample in
            sample.weekly.map { UsageSample(at: sample.at, usedPercent: $0.usedPercent, resetsAt: $0.resetsAt) }
        }
        return (session.isEmpty ? nil : session, weekly.isEmpty ? nil : weekly)
    }
}
