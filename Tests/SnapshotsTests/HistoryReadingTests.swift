import Foundation
import Serialization
import Snapshots
import TestSupport
import Testing

/// A record's history is read tolerantly: whatever a publisher wrote, a reader gets samples in order,
/// one per moment, within range, and a note for each kind of repair.
struct HistoryReadingTests {
    private func decode(_ samples: String, key: String = "weeklySamples") throws -> DecodedRecord {
        let json = """
            {"generatedAt": "2026-11-30T12:00:00Z", "deviceID": "a", "providers": [{"providerID": "claude",
             "lastUpdated": "2026-11-30T12:00:00Z", "\(key)": [\(samples)]}]}
            """
        return try RecordCodec.decode(Data(json.utf8), fileName: "a.json")
    }

    private func sample(_ at: String, _ used: Double, _ resetsAt: String? = nil) -> String {
        let reset = resetsAt.map { #", "resetsAt": "\#($0)""# } ?? ""
        return #"{"at": "\#(at)", "usedPercent": \#(used)\#(reset)}"#
    }

    @Test("clean history is read as written, without notes, from both lists")
    func cleanHistory() throws {
        for key in ["weeklySamples", "sessionSamples"] {
            let record = try decode(
                [sample("2026-11-30T10:00:00Z", 10, "2026-12-02T00:00:00Z"), sample("2026-11-30T11:00:00Z", 12)]
                    .joined(separator: ","), key: key)
            let entry = record.snapshot.providers[0]
            let samples = try #require(key == "weeklySamples" ? entry.weeklySamples : entry.sessionSamples)
            #expect(samples.map(\.usedPercent) == [10, 12])
            #expect(samples[0].resetsAt == Records.date("2026-12-02T00:00:00Z"))
            #expect(record.notes.isEmpty)
        }
    }

    @Test("out of order is sorted, one moment twice keeps the higher figure, each with a note")
    func orderAndDuplicates() throws {
        let record = try decode(
            [
                sample("2026-11-30T11:00:00Z", 30), sample("2026-11-30T10:00:00Z", 20),
                sample("2026-11-30T11:00:00Z", 35), sample("2026-11-30T11:00:00Z", 31),
            ].joined(separator: ","))
        #expect(record.snapshot.providers[0].weeklySamples?.map(\.usedPercent) == [20, 35])
        #expect(record.notes.contains("providers[0].weeklySamples: 1 sample out of order; sorted"))
        #expect(record.notes.contains("providers[0].weeklySamples: 2 samples of a moment already sampled; merged"))
    }

    @Test(
        "percent outside 0...100 is clamped; samples in the future, out of range or with a reset going back are dropped"
    )
    func badValues() throws {
        let record = try decode(
            [
                sample("2026-11-30T09:00:00Z", -5, "2026-12-03T00:00:00Z"),
                sample("2026-11-30T10:00:00Z", 140, "2026-12-03T00:00:00Z"),
                sample("2026-11-30T10:30:00Z", 50, "2026-12-01T00:00:00Z"),
                sample("2026-11-30T13:00:00Z", 60),
                sample("1970-01-01T00:00:00Z", 1),
                sample("2026-11-30T11:00:00Z", 1e300),
            ].joined(separator: ","))
        let samples = try #require(record.snapshot.providers[0].weeklySamples)
        #expect(samples.map(\.usedPercent) == [0, 100, 100])
        #expect(
            record.notes.sorted() == [
                "providers[0].weeklySamples: 1 sample dated after the entry's lastUpdated; dropped",
                "providers[0].weeklySamples: 1 sample whose resetsAt jumps backwards; dropped",
                "providers[0].weeklySamples: 1 sample with a date or figure out of range; dropped",
                "providers[0].weeklySamples: 3 samples with usedPercent outside 0...100; clamped",
            ])
    }

    @Test("a reader that skips history gets none, and no notes about it")
    func skippedHistory() throws {
        let json = """
            {"generatedAt": "2026-11-30T12:00:00Z", "deviceID": "a", "providers": [{"providerID": "claude",
             "lastUpdated": "2026-11-30T12:00:00Z", "sessionSamples": [\(sample("2026-11-30T11:00:00Z", 300))],
             "weeklySamples": [\(sample("2026-11-30T13:00:00Z", 3))]}]}
            """
        let record = try RecordCodec.decode(Data(json.utf8), fileName: "a.json", keepHistory: false)
        #expect(record.snapshot.providers[0].weeklySamples == nil)
        #expect(record.snapshot.providers[0].sessionSamples == nil)
        #expect(record.notes.isEmpty)
    }

    @Test("a reader that skips history keeps the weekly trend, the same the samples give")
    func trendWithoutSamples() throws {
        var samples: [String] = []
        var at = Records.date("2026-11-22T00:00:00Z")
        var used = 0.0
        while at <= Records.date("2026-11-30T12:00:00Z") {
            samples.append(sample(RFC3339.format(at), used, "2026-12-03T00:00:00Z"))
            at = at.addingTimeInterval(5400)
            used = min(100, used + 0.7)
        }
        let full = try decode(samples.joined(separator: ","))
        let skipped = try RecordCodec.decode(
            Data(
                """
                {"generatedAt": "2026-11-30T12:00:00Z", "deviceID": "a", "providers": [{"providerID": "claude",
                 "lastUpdated": "2026-11-30T12:00:00Z", "weeklySamples": [\(samples.joined(separator: ","))]}]}
                """.utf8), fileName: "a.json", keepHistory: false)
        let trend = try #require(skipped.snapshot.providers[0].weeklyTrend)
        #expect(trend == WeeklyTrend(try #require(full.snapshot.providers[0].weeklySamples)))
        // Seven days of half days, the newest sample of each standing.
        #expect(trend.points.count == WeeklyTrend.span)
        #expect(trend.points.last?.at == Records.date("2026-11-30T12:00:00Z").timeIntervalSince1970)
        let values = trend.halfDays(endingAt: Records.date("2026-11-30T12:00:00Z"))
        #expect(values.compactMap { $0 }.count == WeeklyTrend.span)
        #expect(values == values.sorted { ($0 ?? 0) < ($1 ?? 0) })
    }

    @Test("trends of several devices merge by half day, the newest sample standing; a hostile list is left out")
    func trendMerge() {
        let day = Records.date("2026-11-30T00:00:00Z").timeIntervalSince1970
        var laptop = WeeklyTrend()
        laptop.add(at: day + 100, usedPercent: 10)
        laptop.add(at: day + 50_000, usedPercent: 30)
        var desktop = WeeklyTrend()
        desktop.add(at: day + 200, usedPercent: 12)
        desktop.add(at: day + 40_000, usedPercent: 25)
        let merged = WeeklyTrend.merged([laptop, desktop])
        // The first half day's newest sample is the desktop's (at 40 000 s), the second's the laptop's.
        #expect(merged.points.map(\.usedPercent) == [25, 30])
        var hostile = WeeklyTrend()
        hostile.add(at: .nan, usedPercent: 1)
        hostile.add(at: day, usedPercent: .infinity)
        hostile.add(at: 1e300, usedPercent: 1)
        #expect(hostile.points.isEmpty)
    }
}
