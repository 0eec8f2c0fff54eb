import Aggregator
import Foundation
import Portable
import Snapshots
import TestSupport
import Testing

struct MergeMemoTests {
    let noon = MergeOptions(now: Records.date("2026-11-30T12:00:00Z"))

    func merged(_ entries: [ProviderUsage], options: MergeOptions) -> MergeResult {
        let records = entries.enumerated().map { index, entry in
            Records.stored(Records.snapshot("dev-\(index)", generatedAt: "2026-11-30T11:30:00Z", [entry]))
        }
        return Merger.merge(StoreContents(records: records), options: options)
    }

    @Test("the same listing later: the memo stands for the merge, with staleness judged anew")
    func reusedWithFreshStaleness() {
        let result = merged(
            [Records.entry(at: "2026-11-30T11:50:00Z"), Records.entry("codex", at: "2026-11-30T11:20:00Z")],
            options: noon)
        let memo = MergeMemo(store: "/s", readerVersion: "v", fingerprint: 42, options: noon, result: result)
        let later = MergeOptions(now: Records.date("2026-11-30T12:45:00Z"))
        let reused = memo.result(for: 42, options: later)
        #expect(
            reused
                == merged(
                    [Records.entry(at: "2026-11-30T11:50:00Z"), Records.entry("codex", at: "2026-11-30T11:20:00Z")],
                    options: later))
        #expect(reused?.accounts.map(\.stale) == [false, true])
        #expect(reused?.devices.map(\.stale) == [true, true])
        #expect(reused?.now == later.now)
    }

    @Test("another listing, or clock skew at either moment, means a full merge")
    func refusedWhenItCouldDiffer() {
        let result = merged([Records.entry(at: "2026-11-30T12:20:00Z")], options: noon)
        let memo = MergeMemo(store: "/s", readerVersion: "v", fingerprint: 42, options: noon, result: result)
        #expect(memo.result(for: 43, options: noon) == nil)
        // Skewed when merged (20 minutes ahead at noon): the winner may differ once it is not.
        #expect(memo.result(for: 42, options: MergeOptions(now: Records.date("2026-11-30T12:30:00Z"))) == nil)
        let plain = MergeMemo(
            store: "/s", readerVersion: "v", fingerprint: 42, options: noon,
            result: merged([Records.entry(at: "2026-11-30T11:50:00Z")], options: noon))
        // Not skewed when merged, but would be at an earlier moment.
        #expect(plain.result(for: 42, options: MergeOptions(now: Records.date("2026-11-30T11:40:00Z"))) == nil)
        #expect(plain.result(for: 42, options: MergeOptions(now: noon.now, maxSkew: 60)) != nil)
    }

    @Test("a memo survives its file intact; a damaged or foreign file is ignored")
    func fileRoundTrip() throws {
        let root = TemporaryDirectory("aggctl-memo")
        var entry = Records.entry(
            email: " Mixed@Case.test ", at: "2026-11-30T11:50:00Z", weeklyUsed: 12.5, resetsAt: "2026-11-30T14:00:00Z",
            tokensToday: 5, tokens30Days: 50, costToday: 1.25, error: "partial")
        entry.modelWeekly = [NamedWindow(name: "opus", window: UsageWindow(usedPercent: 80, windowMinutes: 10080))]
        let result = merged([entry, Records.entry(email: nil, at: "2026-11-30T11:00:00Z")], options: noon)
        let memo = MergeMemo(store: "/s", readerVersion: "v", fingerprint: 7, options: noon, result: result)
        let path = root.file("cache/s.merge")
        try memo.save(to: path)
        let loaded = MergeMemo.load(from: path, store: "/s", readerVersion: "v")
        #expect(loaded?.result == result)
        #expect(loaded?.fingerprint == 7)
        #expect(loaded?.options == noon)
        // Asked for the memo of a listing, it gives only one made from that listing.
        #expect(MergeMemo.load(from: path, store: "/s", readerVersion: "v", fingerprint: 7)?.result == result)
        #expect(MergeMemo.load(from: path, store: "/s", readerVersion: "v", fingerprint: 8) == nil)
        #expect(MergeMemo.load(from: path, store: "/other", readerVersion: "v", fingerprint: 7) == nil)
        #expect(MergeMemo.load(from: path, store: "/other", readerVersion: "v") == nil)
        #expect(MergeMemo.load(from: path, store: "/s", readerVersion: "w") == nil)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count / 3] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(MergeMemo.load(from: path, store: "/s", readerVersion: "v") == nil)
        #expect(MergeMemo.load(from: path, store: "/s", readerVersion: "v", fingerprint: 7) == nil)
    }

    @Test("a merge with history keeps its samples and days; a sample past the skew tolerance is never kept out")
    func historyKept() throws {
        var entry = Records.entry(
            at: "2026-11-30T11:50:00Z", weeklyUsed: 30,
            daily: [
                DailyTokens(date: "2026-11-29", tokens: 10, costUSD: 0.5), DailyTokens(date: "2026-11-30", tokens: 7),
            ])
        entry.weeklySamples = [
            UsageSample(at: Records.date("2026-11-30T10:00:00Z"), usedPercent: 20),
            UsageSample(
                at: Records.date("2026-11-30T11:00:00Z"), usedPercent: 25,
                resetsAt: Records.date("2026-12-03T00:00:00Z")),
        ]
        entry.sessionSamples = [UsageSample(at: Records.date("2026-11-30T11:40:00Z"), usedPercent: 5)]
        let result = merged([entry], options: noon)
        #expect(result.accounts[0].history?.weekly.count == 2)
        let root = TemporaryDirectory("aggctl-memo-history")
        let memo = MergeMemo(store: "/s", readerVersion: "v", fingerprint: 9, options: noon, result: result)
        try memo.save(to: root.file("m"))
        let loaded = try #require(MergeMemo.load(from: root.file("m"), store: "/s", readerVersion: "v"))
        #expect(loaded.result == result)
        #expect(loaded.result.accounts[0].perDevice[0].daily.count == 2)

        // A sample 4 minutes after its entry (records allow 5) and past noon's tolerance of 1 minute: merged
        // at noon it is left out, so the memo cannot stand for a later moment that would show it.
        entry.weeklySamples!.append(UsageSample(at: Records.date("2026-11-30T12:01:30Z"), usedPercent: 26))
        entry.lastUpdated = Records.date("2026-11-30T11:57:30Z")
        let tight = MergeOptions(now: noon.now, maxSkew: 60)
        let skewed = merged([entry], options: tight)
        #expect(skewed.accounts[0].history?.weekly.count == 2)
        let kept = MergeMemo(store: "/s", readerVersion: "v", fingerprint: 9, options: tight, result: skewed)
        let later = MergeOptions(now: Records.date("2026-11-30T12:05:00Z"), maxSkew: 60)
        #expect(kept.result(for: 9, options: later) == nil)
        #expect(merged([entry], options: later).accounts[0].history?.weekly.count == 3)
    }

    @Test("a sealed memo naming a device by an id no record could have is ignored, not believed")
    func deviceIDsCheckedOnLoad() throws {
        let root = TemporaryDirectory("aggctl-memo-ids")
        var result = merged([Records.entry(email: "a@example.com", at: "2026-11-30T11:50:00Z")], options: noon)
        let path = root.file("cache/s.merge")
        try MergeMemo(store: "/s", readerVersion: "v", fingerprint: 7, options: noon, result: result).save(to: path)
        #expect(MergeMemo.load(from: path, store: "/s", readerVersion: "v")?.result == result)
        // The same memo, its checksum valid, as a hand that can write the state folder would seal it.
        for hostile in ["../../etc/passwd", "dev\u{1B}[2J", ".hidden", ""] {
            let id = DeviceID(alreadyValidated: hostile)
            result.devices[0].deviceID = id
            result.accounts[0].deviceID = id
            result.accounts[0].seenOn = [id]
            result.accounts[0].perDevice[0].deviceID = id
            try MergeMemo(store: "/s", readerVersion: "v", fingerprint: 7, options: noon, result: result).save(to: path)
            #expect(MergeMemo.load(from: path, store: "/s", readerVersion: "v") == nil, "\(hostile)")
        }
    }

    @Test("a memo larger than the head it is judged by: turned away by its listing, whole and checked otherwise")
    func largeFileJudgedByItsHead() throws {
        let root = TemporaryDirectory("aggctl-memo-large")
        let entries = (0..<60).map { Records.entry(email: "user\($0)@example.com", at: "2026-11-30T11:50:00Z") }
        let result = merged(entries, options: noon)
        let memo = MergeMemo(store: "/s", readerVersion: "v", fingerprint: 7, options: noon, result: result)
        let path = root.file("cache/s.merge")
        try memo.save(to: path)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.count > 2 * FileSystem.headSize)
        #expect(MergeMemo.load(from: path, store: "/s", readerVersion: "v", fingerprint: 7)?.result == result)
        #expect(MergeMemo.load(from: path, store: "/s", readerVersion: "v", fingerprint: 8) == nil)
        #expect(MergeMemo.load(from: path, store: "/other", readerVersion: "v", fingerprint: 7) == nil)
        // Damage past the head: the head still names the listing, and the checksum refuses the file.
        bytes[FileSystem.headSize + 100] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(MergeMemo.load(from: path, store: "/s", readerVersion: "v", fingerprint: 7) == nil)
    }
}
