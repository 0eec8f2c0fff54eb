import Portable

/// How a record's history is read tolerantly (the record format, "History"; issue 12's "Bad input").
///
/// A sample list written by a broken or hostile publisher must never crash a reader or break a chart:
/// samples out of order are sorted (a list newest first throughout is simply reversed), duplicates of one moment become one (the higher figure standing,
/// since usage only grows within a window), percents outside 0...100 are clamped, and samples that
/// cannot be placed (a date out of range, dated after the entry's own `lastUpdated`, a reset time that
/// jumps backwards) are dropped. Each kind of repair is one note naming the list.
extension RecordFields {
    /// How far a sample may lie after its entry's `lastUpdated`, and a reset time may move backwards,
    /// before it counts as wrong: providers round and jitter reset times by seconds.
    static let historyTolerance: TimeInterval = 300

    static func cleanHistory(
        _ entry: inout ProviderUsage, at prefix: @autoclosure () -> String, notes: inout [String]
    ) {
        // The trend a reader keeps instead of samples follows the same rule as samples: nothing after the
        // entry's own figures.
        if entry.weeklyTrend != nil {
            let latest = entry.lastUpdated.timeIntervalSince1970 + historyTolerance
            entry.weeklyTrend!.points.removeAll { $0.at > latest }
            if entry.weeklyTrend!.points.isEmpty { entry.weeklyTrend = nil }
        }
        if let samples = entry.weeklySamples {
            entry.weeklySamples = cleaned(
                samples, notAfter: entry.lastUpdated, path: "\(prefix()).weeklySamples", &notes)
        }
        if let samples = entry.sessionSamples {
            entry.sessionSamples = cleaned(
                samples, notAfter: entry.lastUpdated, path: "\(prefix()).sessionSamples", &notes)
        }
    }

    /// `samples` sorted, one per moment, in range; notes for what was changed.
    static func cleaned(
        _ samples: [UsageSample], notAfter lastUpdated: Date, path: String, _ notes: inout [String]
    ) -> [UsageSample] {
        var outOfRange = 0
        var future = 0
        var clamped = 0
        var badResets = 0
        var kept: [UsageSample] = []
        kept.reserveCapacity(samples.count)
        let latest = lastUpdated.addingTimeInterval(historyTolerance)
        for var sample in samples {
            guard plausibleDates.contains(sample.at), sample.usedPercent.isFinite else {
                outOfRange += 1
                continue
            }
            guard sample.at <= latest else {
                future += 1
                continue
            }
            if !(0...100).contains(sample.usedPercent) {
                clamped += 1
                sample.usedPercent = min(100, max(0, sample.usedPercent))
            }
            if let resetsAt = sample.resetsAt, !plausibleDates.contains(resetsAt) {
                badResets += 1
                sample.resetsAt = nil
            }
            kept.append(sample)
        }
        var unordered = 0
        for index in kept.indices.dropFirst() where kept[index].at < kept[index - 1].at { unordered += 1 }
        if unordered > 0, unordered == kept.count - 1 {
            // Newest first throughout: a publisher's choice of order, not damage (the shared store generator
            // writes it so). Read the other way round, without a note.
            kept.reverse()
            unordered = 0
        } else if unordered > 0 {
            // Stable, so that duplicates keep the order they were written in.
            kept = kept.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
        }
        var duplicates = 0
        var backwards = 0
        var result: [UsageSample] = []
        result.reserveCapacity(kept.count)
        var newestReset: Date?
        for sample in kept {
            if let last = result.last, last.at == sample.at {
                duplicates += 1
                if sample.usedPercent > last.usedPercent { result[result.count - 1] = sample }
                continue
            }
            if let resetsAt = sample.resetsAt {
                if let newestReset, resetsAt < newestReset.addingTimeInterval(-historyTolerance) {
                    backwards += 1
                    continue
                }
                newestReset = max(newestReset ?? resetsAt, resetsAt)
            }
            result.append(sample)
        }
        func note(_ count: Int, _ what: String) {
            guard count > 0 else { return }
            notes.append("\(path): \(count) sample\(count == 1 ? "" : "s") \(what)")
        }
        note(outOfRange, "with a date or figure out of range; dropped")
        note(future, "dated after the entry's lastUpdated; dropped")
        note(clamped, "with usedPercent outside 0...100; clamped")
        note(badResets, "with a resetsAt out of range; reset ignored")
        note(unordered, "out of order; sorted")
        note(duplicates, "of a moment already sampled; merged")
        note(backwards, "whose resetsAt jumps backwards; dropped")
        return result
    }
}
