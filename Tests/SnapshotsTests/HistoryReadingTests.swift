import Foundation
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
        return try SnapshotCodec.decode(Data(json.utf8), fileName: "a.json")
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
        let record = try SnapshotCodec.decode(Data(json.utf8), fileName: "a.json", keepHistory: false)
        #expect(record.snapshot.providers[0].weeklySamples == nil)
        #expect(record.snapshot.providers[0].sessionSamples == nil)
        #expect(record.notes.isEmpty)
    }
}
