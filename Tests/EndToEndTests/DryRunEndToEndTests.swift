import Foundation
import Snapshots
import TestSupport
import Testing

/// `publish --dry-run` shows the record and writes nothing at all.
struct DryRunEndToEndTests {
    let root = TemporaryDirectory("aggctl-dry-run")
    var environment: [String: String] {
        [
            "HOME": root.file("home"), "XDG_STATE_HOME": root.file("state"), "XDG_CACHE_HOME": root.file("cache"),
            "PATH": "/usr/bin:/bin",
        ]
    }

    func everything() -> [String] {
        (FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String] ?? []).sorted()
    }

    @Test("without a store, an id or any state: the record is printed and not a file is created")
    func writesNothing() throws {
        let input = try root.write(
            "input.json",
            #"{"providers": [{"providerID": "claude", "accountEmail": "you@example.com", "lastUpdated": "2026-11-30T11:00:00Z", "weekly": {"usedPercent": 40, "windowMinutes": 10080, "resetsAt": "2026-12-03T00:00:00Z"}}]}"#
        )
        try FileManager.default.copyItem(
            atPath: Repository.path("Tests/CollectorsTests/Fixtures/codex-home"), toPath: root.file("codex"))
        let before = everything()
        let run = try BinaryRun.run(
            [
                "publish", "--dry-run", "--from", input, "--source", "codex:\(root.file("codex"))", "--now",
                "2026-11-30T12:00:00Z",
            ],
            environment: environment)
        #expect(run.status == 0, "\(run.errors)")
        let record = try RecordCodec.decode(Data(run.output.utf8), fileName: "x.json")
        #expect(record.snapshot.providers.map(\.providerID).sorted() == ["claude", "codex"])
        #expect(record.snapshot.deviceID.rawValue.hasSuffix("-dryrun"))
        #expect(record.snapshot.providers.first { $0.providerID == "claude" }?.weeklySamples?.count == 1)
        #expect(everything() == before)
    }

    @Test("a dry run shows the id and history a machine already has, still writing nothing")
    func showsWhatIsKept() throws {
        let input = try root.write(
            "input.json",
            #"{"providers": [{"providerID": "claude", "accountEmail": "you@example.com", "lastUpdated": "2026-11-30T11:00:00Z", "weekly": {"usedPercent": 40, "windowMinutes": 10080, "resetsAt": "2026-12-03T00:00:00Z"}}]}"#
        )
        let published = try BinaryRun.run(
            ["publish", "--store", root.file("store"), "--from", input, "--now", "2026-11-30T11:00:30Z"],
            environment: environment)
        #expect(published.status == 0)
        let later = try root.write(
            "later.json",
            #"{"providers": [{"providerID": "claude", "accountEmail": "you@example.com", "lastUpdated": "2026-11-30T12:00:00Z", "weekly": {"usedPercent": 45, "windowMinutes": 10080, "resetsAt": "2026-12-03T00:00:00Z"}}]}"#
        )
        let before = everything()
        let run = try BinaryRun.run(
            ["publish", "--dry-run", "--from", later, "--now", "2026-11-30T12:00:30Z"], environment: environment)
        #expect(run.status == 0, "\(run.errors)")
        let record = try RecordCodec.decode(Data(run.output.utf8), fileName: "x.json")
        let id = try String(contentsOfFile: root.file("state/aggctl/device-id"), encoding: .utf8)
        #expect(record.snapshot.deviceID.rawValue == id.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(record.snapshot.providers[0].weeklySamples?.map(\.usedPercent) == [40, 45])
        #expect(everything() == before)
    }
}
