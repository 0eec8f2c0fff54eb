import Aggregator
import Foundation
import Snapshots
import TestSupport
import Testing

struct HistoryArchiveTests {
    let now = Records.date("2026-11-30T12:00:00Z")

    private func account(_ samples: [UsageSample]) -> MergedAccount {
        var entry = Records.entry(at: "2026-11-30T11:00:00Z", weeklyUsed: 10)
        entry.weeklySamples = samples
        return mergedOne(entry, device: "a", at: "2026-11-30T11:00:00Z", now: "2026-11-30T12:00:00Z")
    }

    private func sample(daysAgo: Double, _ used: Double) -> UsageSample {
        UsageSample(at: now.addingTimeInterval(-daysAgo * 86_400), usedPercent: used, resetsAt: now)
    }

    @Test("weeks add up across runs, beyond what records carry, up to 8 weeks; one sample per hour and reset")
    func accumulates() {
        var archive = HistoryArchive(store: "s")
        _ = archive.absorb([account([sample(daysAgo: 70, 1), sample(daysAgo: 40, 2)])], now: now, maxSkew: 300)
        let known = archive.absorb(
            [account([sample(daysAgo: 10, 3), sample(daysAgo: 10 - 0.01, 4), sample(daysAgo: 1, 5)])], now: now,
            maxSkew: 300)
        #expect(known["claude:you@example.com"]?.map(\.usedPercent) == [2, 4, 5])
    }

    @Test("saved and loaded back bit for bit; a damaged file is set aside and reads as fresh")
    func file() throws {
        let root = TemporaryDirectory("aggctl-archive")
        let path = root.file("store-s.weekly")
        var archive = HistoryArchive(store: "s")
        _ = archive.absorb([account([sample(daysAgo: 3, 1), sample(daysAgo: 2, 2)])], now: now, maxSkew: 300)
        try archive.save(to: path)
        #expect(HistoryArchive.load(from: path, store: "s") == .loaded(archive))
        // Another store's archive is not this one's.
        guard case .damaged = HistoryArchive.load(from: path, store: "other") else {
            Issue.record("another store's archive was read")
            return
        }
        try archive.save(to: path)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: path))
        guard case .damaged(let aside) = HistoryArchive.load(from: path, store: "s") else {
            Issue.record("a damaged archive was read")
            return
        }
        #expect(FileManager.default.fileExists(atPath: aside))
        #expect(HistoryArchive.load(from: path, store: "s") == .fresh)
    }
}
