import Foundation
import Snapshots
import TestSupport
import Testing

/// An older record put back into the store (a restored backup, or a server replaying what it once held):
/// readers say so and leave it out, alerts do not move, and the publisher is not told of a second machine.
struct ReplayEndToEndTests {
    let root = TemporaryDirectory("aggctl-replay")

    func machine(_ name: String) -> [String: String] {
        ["HOME": root.file(name), "XDG_STATE_HOME": root.file(name + "/state"), "PATH": "/usr/bin:/bin"]
    }

    func publish(_ at: String, used: Double, resetsAt: String) throws -> BinaryRun {
        let input =
            #"[{"providerID": "claude", "accountEmail": "a@example.com", "lastUpdated": "\#(at)", "session": {"usedPercent": \#(used), "windowMinutes": 300, "resetsAt": "\#(resetsAt)"}}]"#
        return try BinaryRun.run(
            ["publish", "--store", root.file("store"), "--device-id", "laptop", "--from", "-", "--now", at],
            environment: machine("laptop"), input: Data(input.utf8))
    }

    func check(_ now: String) throws -> BinaryRun {
        try BinaryRun.run(
            ["check", "--store", root.file("store"), "--notify", "stdout", "--now", now], environment: machine("reader")
        )
    }

    @Test("a replayed older record is reported, left out, fires nothing, and its publisher is told what it is")
    func replay() throws {
        #expect(try publish("2026-11-30T12:00:00Z", used: 40, resetsAt: "2026-11-30T15:00:00Z").status == 0)
        #expect(try check("2026-11-30T12:00:30Z").output.isEmpty)
        #expect(try publish("2026-11-30T12:10:00Z", used: 100, resetsAt: "2026-11-30T15:00:00Z").status == 0)
        let backup = try Data(contentsOf: URL(fileURLWithPath: root.file("store/laptop.json")))
        #expect(try check("2026-11-30T12:10:30Z").output.contains(#""kind":"depleted""#))
        #expect(try publish("2026-11-30T15:05:00Z", used: 5, resetsAt: "2026-11-30T20:00:00Z").status == 0)
        #expect(try check("2026-11-30T15:05:30Z").output.contains(#""kind":"restored""#))
        // The used-up record of 12:10 put back.
        try backup.write(to: URL(fileURLWithPath: root.file("store/laptop.json")))
        let replayed = try check("2026-11-30T15:06:00Z")
        #expect(replayed.status == 0)
        #expect(replayed.output.isEmpty, "no 'depleted' again: \(replayed.output)")
        #expect(
            replayed.errors.contains(
                "'laptop.json': older than the record seen at 2026-11-30T15:05:00Z from this device: a restored "
                    + "backup or a replay; its figures are left out"), "\(replayed.errors)")
        let status = try BinaryRun.run(
            ["status", "--store", root.file("store"), "--json", "--now", "2026-11-30T15:06:30Z"],
            environment: machine("reader"))
        let document = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
        #expect((document["accounts"] as? [Any])?.isEmpty == true, "the old figures are not shown as current")
        let republished = try publish("2026-11-30T15:10:00Z", used: 6, resetsAt: "2026-11-30T20:00:00Z")
        #expect(republished.status == 0)
        #expect(
            republished.errors.contains("the store held an older record of device 'laptop'"), "\(republished.errors)")
        #expect(!republished.errors.contains("another machine publishes"))
        #expect(try check("2026-11-30T15:10:30Z").output.isEmpty, "back to current figures, nothing to tell")
    }
}
