import Aggregator
import Foundation
import Snapshots
import TestSupport
import Testing

struct SamplingRuleTests {
    let start = Records.date("2026-11-20T00:00:00Z")
    let reset = Records.date("2026-11-27T00:00:00Z")

    private func sample(minutes: Double, _ used: Double, resetsAt: Date? = nil) -> UsageSample {
        UsageSample(at: start.addingTimeInterval(minutes * 60), usedPercent: used, resetsAt: resetsAt ?? reset)
    }

    @Test("a sample on a move of 1 point, on a new reset time, or after 30 minutes; otherwise none")
    func rule() {
        var samples: [UsageSample] = []
        #expect(SamplingRule.record(sample(minutes: 0, 10), into: &samples))
        #expect(!SamplingRule.record(sample(minutes: 1, 10.5), into: &samples))
        #expect(!SamplingRule.record(sample(minutes: 2, 10.9), into: &samples))
        #expect(SamplingRule.record(sample(minutes: 3, 11), into: &samples))
        #expect(!SamplingRule.record(sample(minutes: 20, 11), into: &samples))
        #expect(SamplingRule.record(sample(minutes: 33, 11), into: &samples))
        // The same reset read a few seconds differently is the same reset; a new one is a sample.
        #expect(!SamplingRule.record(sample(minutes: 34, 11, resetsAt: reset.addingTimeInterval(2)), into: &samples))
        #expect(
            SamplingRule.record(sample(minutes: 35, 0, resetsAt: reset.addingTimeInterval(7 * 86_400)), into: &samples))
        // Figures published again, or older than the last sample, are not news.
        #expect(!SamplingRule.record(sample(minutes: 35, 50), into: &samples))
        #expect(!SamplingRule.record(sample(minutes: 10, 50), into: &samples))
        #expect(samples.map(\.usedPercent) == [10, 11, 11, 0])
    }

    @Test("figures outside 0...100 are kept clamped, not-a-number is never kept")
    func clamped() {
        var samples: [UsageSample] = []
        SamplingRule.record(sample(minutes: 0, 130), into: &samples)
        #expect(!SamplingRule.record(sample(minutes: 60, .nan), into: &samples))
        #expect(samples.map(\.usedPercent) == [100])
    }

    @Test("older than 14 days is pruned")
    func pruned() {
        let samples = [sample(minutes: 0, 1), sample(minutes: 60 * 24 * 10, 2), sample(minutes: 60 * 24 * 15, 3)]
        let now = start.addingTimeInterval(15 * 86_400)
        #expect(SamplingRule.pruned(samples, now: now).map(\.usedPercent) == [2, 3])
    }

    @Test("a record gets runs of unchanged figures as their ends: the same line with fewer points")
    func runsCollapse() {
        var samples: [UsageSample] = []
        for minute in stride(from: 0.0, through: 600, by: 30) {
            SamplingRule.record(sample(minutes: minute, 5), into: &samples)
        }
        SamplingRule.record(sample(minutes: 601, 9), into: &samples)
        #expect(samples.count == 22)
        let written = SamplingRule.forRecord(samples, now: start.addingTimeInterval(700 * 60))
        #expect(written.map(\.usedPercent) == [5, 5, 9])
        #expect(written.map(\.at) == [samples[0].at, samples[20].at, samples[21].at])
    }

    /// Two weeks of very heavy use, observed every 3 minutes: every session window used up in an hour, the
    /// weekly window steadily.
    private func heavyFortnight() -> (entry: ProviderUsage, now: Date) {
        var history = LocalHistory()
        var entry = ProviderUsage(providerID: "claude", accountEmail: "heavy@example.com", lastUpdated: start)
        let minutes = 14 * 24 * 60
        for minute in stride(from: 0, through: minutes, by: 3) {
            let now = start.addingTimeInterval(Double(minute) * 60)
            let sessionStart = start.addingTimeInterval(Double(minute / 300 * 300) * 60)
            let weekStart = start.addingTimeInterval(Double(minute / 10080 * 10080) * 60)
            entry.lastUpdated = now
            entry.session = UsageWindow(
                usedPercent: min(100, Double(minute % 300) * 100 / 60), windowMinutes: 300,
                resetsAt: sessionStart.addingTimeInterval(300 * 60))
            entry.weekly = UsageWindow(
                usedPercent: Double(minute % 10080) / 100.8, windowMinutes: 10080,
                resetsAt: weekStart.addingTimeInterval(10080 * 60))
            entry = history.observe(entry, now: now)
        }
        return (entry, start.addingTimeInterval(Double(minutes) * 60))
    }

    @Test("a provider entry with 14 days of the heaviest use stays well under 64 KiB, reset peaks kept")
    func recordStaysSmall() throws {
        let (entry, now) = heavyFortnight()
        let session = try #require(entry.sessionSamples)
        let weekly = try #require(entry.weeklySamples)
        #expect(session.count <= SamplingRule.budget)
        #expect(weekly.count <= SamplingRule.budget)
        let snapshot = DeviceSnapshot(
            deviceID: Records.id("heavy"), deviceName: "heavy", generatedAt: now, providers: [entry])
        let bytes = try RecordCodec.encode(snapshot, pretty: false).count
        #expect(bytes < 40 * 1024, "\(bytes) bytes")
        // Every session window kept within the record ends on its peak: 100 % right before its reset.
        let peaks = zip(session, session.dropFirst()).filter { !SamplingRule.sameReset($0.resetsAt, $1.resetsAt) }
        #expect(!peaks.isEmpty)
        #expect(peaks.allSatisfy { $0.0.usedPercent == 100 })
        // The newest figures are always there.
        #expect(session.last?.at == now)
        #expect(weekly.last?.at == now)
    }
}
