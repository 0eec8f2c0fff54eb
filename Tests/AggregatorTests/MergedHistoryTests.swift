import Aggregator
import Foundation
import Snapshots
import TestSupport
import Testing

struct MergedHistoryTests {
    let now = Records.date("2026-11-30T12:00:00Z")
    let reset = Records.date("2026-11-30T10:00:00Z")

    private func sample(_ at: String, _ used: Double, resetsAt: Date? = nil) -> UsageSample {
        UsageSample(at: Records.date(at), usedPercent: used, resetsAt: resetsAt)
    }

    @Test("the union of two devices' samples is one line ordered by time")
    func union() {
        let laptop = [sample("2026-11-30T08:00:00Z", 10), sample("2026-11-30T09:00:00Z", 30)]
        let desktop = [sample("2026-11-30T08:30:00Z", 20), sample("2026-11-30T09:30:00Z", 40)]
        for lists in [[laptop, desktop], [desktop, laptop]] {
            let merged = MergedHistory.union(lists, now: now, maxSkew: 300)
            #expect(merged.map(\.usedPercent) == [10, 20, 30, 40])
        }
    }

    @Test("samples of the same minute from several devices are one point, the higher figure standing")
    func sameMinute() {
        let merged = MergedHistory.union(
            [
                [sample("2026-11-30T08:00:05Z", 10)], [sample("2026-11-30T08:00:55Z", 12)],
                [sample("2026-11-30T08:00:30Z", 11)],
            ],
            now: now, maxSkew: 300)
        #expect(merged == [sample("2026-11-30T08:00:55Z", 12)])
        // A minute apart are two points.
        let apart = MergedHistory.union(
            [[sample("2026-11-30T08:00:59Z", 10)], [sample("2026-11-30T08:01:00Z", 9)]], now: now, maxSkew: 300)
        #expect(apart.count == 2)
    }

    @Test("a sample dated more than the skew tolerance ahead is dropped; within it is kept")
    func skew() {
        let merged = MergedHistory.union(
            [
                [
                    sample("2026-11-30T11:00:00Z", 10), sample("2026-11-30T12:04:00Z", 20),
                    sample("2026-11-30T12:06:00Z", 99),
                ]
            ],
            now: now, maxSkew: 300)
        #expect(merged.map(\.usedPercent) == [10, 20])
    }

    @Test("a reset between two samples, the later lower, adds the earlier value a second before it and 0 at it")
    func resetPoints() {
        let line = MergedHistory.line([
            sample("2026-11-30T09:00:00Z", 80, resetsAt: reset), sample("2026-11-30T09:30:00Z", 95, resetsAt: reset),
            sample("2026-11-30T10:30:00Z", 5, resetsAt: reset.addingTimeInterval(7 * 86_400)),
        ])
        #expect(line.map(\.usedPercent) == [80, 95, 95, 0, 5])
        #expect(line.map(\.isReset) == [false, false, true, true, false])
        #expect(line[2].at == reset.addingTimeInterval(-1))
        #expect(line[3].at == reset)
        // No reset drawn when the later sample is not lower, or the reset is not between them.
        let flat = MergedHistory.line([
            sample("2026-11-30T09:00:00Z", 80, resetsAt: reset), sample("2026-11-30T10:30:00Z", 85, resetsAt: reset),
        ])
        #expect(flat.count == 2)
    }

    @Test("the merge unions the history of every device that reported the account, only when it was read")
    func mergeUnions() throws {
        var laptop = Records.entry(at: "2026-11-30T11:00:00Z", weeklyUsed: 30)
        laptop.weeklySamples = [sample("2026-11-30T08:00:00Z", 10), sample("2026-11-30T11:00:00Z", 30)]
        var desktop = Records.entry(at: "2026-11-30T11:30:00Z", weeklyUsed: 35)
        desktop.weeklySamples = [sample("2026-11-30T09:00:00Z", 20), sample("2026-11-30T11:30:00Z", 35)]
        desktop.sessionSamples = [sample("2026-11-30T11:30:00Z", 40)]
        let contents = StoreContents(records: [
            Records.stored(Records.snapshot("laptop", generatedAt: "2026-11-30T11:00:00Z", [laptop])),
            Records.stored(Records.snapshot("desktop", generatedAt: "2026-11-30T11:30:00Z", [desktop])),
        ])
        let account = Merger.merge(contents, options: MergeOptions(now: now)).accounts[0]
        let history = try #require(account.history)
        #expect(history.weekly.map(\.usedPercent) == [10, 20, 30, 35])
        #expect(history.session.map(\.usedPercent) == [40])

        laptop.weeklySamples = nil
        desktop.weeklySamples = nil
        desktop.sessionSamples = nil
        let withoutHistory = StoreContents(records: [
            Records.stored(Records.snapshot("laptop", generatedAt: "2026-11-30T11:00:00Z", [laptop])),
            Records.stored(Records.snapshot("desktop", generatedAt: "2026-11-30T11:30:00Z", [desktop])),
        ])
        #expect(Merger.merge(withoutHistory, options: MergeOptions(now: now)).accounts[0].history == nil)
    }
}
