import Portable
import Serialization
import Snapshots

/// The limit messages the logs hold, as history: each "limit reached · resets ..." says the window was
/// used up when it was written, until its reset. The first publish on a machine hands them to
/// the history (as the Codex trail does), so the first report draws the days the logs cover.
extension ClaudeCollector {
    /// One limit message with a reset time: when it was written, when the window comes back, and which.
    struct LimitHit: Equatable, Sendable {
        var at: Date
        var resetsAt: Date
        var isWeekly: Bool
    }

    /// At most this many hits a file, or a scan, keeps: a limit message every 5 hours for a month is 150.
    static let hitBudget = 200

    /// `hits` with `hit` added (one per window and reset: Claude Code repeats its message on every
    /// attempt while the window is used up), the newest `hitBudget` kept.
    static func keep(_ hit: LimitHit, in hits: inout [LimitHit]) {
        if hits.contains(where: { $0.isWeekly == hit.isWeekly && $0.resetsAt == hit.resetsAt }) { return }
        hits.append(hit)
        if hits.count > 2 * hitBudget {
            hits.sort { $0.at < $1.at }
            hits.removeFirst(hits.count - hitBudget)
        }
    }

    /// The hits as samples of the two windows: used up at the message, with its reset (the merged history
    /// draws the drop there; a sample dated after the entry's `lastUpdated` would be refused as from the
    /// future); in time order, the newest `hitBudget` of each, none after `until`.
    static func samples(_ hits: [LimitHit], until: Date) -> (session: [UsageSample]?, weekly: [UsageSample]?) {
        func samples(weekly: Bool) -> [UsageSample]? {
            let chosen = hits.filter { $0.isWeekly == weekly && $0.at <= until }.sorted { $0.at < $1.at }
                .suffix(hitBudget)
            let samples = chosen.map { UsageSample(at: $0.at, usedPercent: 100, resetsAt: $0.resetsAt) }
            return samples.isEmpty ? nil : samples
        }
        return (samples(weekly: false), samples(weekly: true))
    }

    static func encodeHits(_ hits: [LimitHit], into out: inout BinaryWriter) {
        out.u32(UInt32(hits.count))
        for hit in hits {
            out.date(hit.at)
            out.date(hit.resetsAt)
            out.u8(hit.isWeekly ? 1 : 0)
        }
    }

    static func decodeHits(from input: inout BinaryReader) throws -> [LimitHit] {
        let count = Int(try input.u32())
        guard count <= 2 * hitBudget else { throw BinaryReader.Corrupt() }
        var hits: [LimitHit] = []
        for _ in 0..<count {
            hits.append(LimitHit(at: try input.date(), resetsAt: try input.date(), isWeekly: try input.u8() == 1))
        }
        return hits
    }
}
