import Foundation
import Serialization
import Snapshots
import TestSupport
import Testing

/// `report` over a store that stands still keeps its merge with history from the second run on and draws
/// from it: the same page, byte for byte, as a run that reads every record; a changed record is read.
struct ReportKeptMergeEndToEndTests {
    let root = TemporaryDirectory("aggctl-report-kept")
    static let now = "2026-11-30T12:00:00Z"

    func record(_ device: String, weeklyUsed: Double, tokens: Int) -> DeviceSnapshot {
        var entry = Records.entry(
            email: "you@example.com", at: "2026-11-30T11:30:00Z", weeklyUsed: weeklyUsed,
            resetsAt: "2026-12-03T00:00:00Z", tokensToday: tokens,
            daily: [
                DailyTokens(date: "2026-11-29", tokens: 1000, costUSD: 1.5),
                DailyTokens(date: "2026-11-30", tokens: tokens, costUSD: 0.25),
            ])
        entry.weeklySamples = (0..<48).map { hour in
            UsageSample(
                at: Records.date("2026-11-28T12:00:00Z").addingTimeInterval(Double(hour) * 3600),
                usedPercent: weeklyUsed * Double(hour) / 48, resetsAt: Records.date("2026-12-03T00:00:00Z"))
        }
        return Records.snapshot(device, generatedAt: "2026-11-30T11:30:00Z", [entry])
    }

    /// Writes a record dated an hour back on disk, as a store that stands still has them.
    func write(_ snapshot: DeviceSnapshot, settledAt modified: Date) throws {
        let path = root.file("store/\(snapshot.deviceID.recordName)")
        try FileManager.default.createDirectory(atPath: root.file("store"), withIntermediateDirectories: true)
        try Records.json(snapshot).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: path)
    }

    func report(state: String) throws -> String {
        let page = root.file("page-\(UUID().uuidString).html")
        let run = try BinaryRun.run(
            ["report", "--store", root.file("store"), "--out", page, "--now", Self.now],
            environment: ["HOME": root.file("home"), "XDG_STATE_HOME": root.file(state), "PATH": "/usr/bin:/bin"])
        #expect(run.status == 0, "\(run.errors)")
        return try String(contentsOfFile: page, encoding: .utf8)
    }

    func keptMerges(_ state: String) -> [String] {
        let folder = root.file("\(state)/aggctl/cache")
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".merge") }
    }

    @Test("an unchanged store's merge with history is kept from the second report and gives the same page")
    func keptAndReused() throws {
        let hourAgo = Date().addingTimeInterval(-3600)
        try write(record("laptop", weeklyUsed: 30, tokens: 500), settledAt: hourAgo)
        try write(record("desktop", weeklyUsed: 40, tokens: 700), settledAt: hourAgo)

        let first = try report(state: "state")
        #expect(keptMerges("state").isEmpty, "a first read keeps no merge: the store may change every run")
        #expect(first.contains("<polyline class=\"line\""))
        let second = try report(state: "state")
        #expect(keptMerges("state").count == 1, "the same records twice: the merge is kept")
        let third = try report(state: "state")
        #expect(second == first && third == first)

        // A record changes: read again, and the page is a fresh run's.
        try write(record("desktop", weeklyUsed: 90, tokens: 9000), settledAt: hourAgo.addingTimeInterval(60))
        let changed = try report(state: "state")
        #expect(changed != first)
        #expect(changed == (try report(state: "fresh-state")))
    }
}
