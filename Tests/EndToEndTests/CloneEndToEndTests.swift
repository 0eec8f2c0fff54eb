import Foundation
import Snapshots
import TestSupport
import Testing

/// Two machines with one device id (a cloned VM: the state folder copied with it) overwrite each
/// other's record: each publish now says so, doctor has a line for it, and `devices --new-id` ends it.
struct CloneEndToEndTests {
    let root = TemporaryDirectory("aggctl-clone")
    var store: String { root.file("store") }

    func machine(_ name: String) -> [String: String] {
        ["HOME": root.file(name), "XDG_STATE_HOME": root.file(name + "/state"), "PATH": "/usr/bin:/bin"]
    }

    func publish(_ name: String, at now: String) throws -> BinaryRun {
        let input =
            #"[{"providerID": "claude", "accountEmail": "\#(name)@x.test", "lastUpdated": "\#(now)", "session": {"usedPercent": 10}}]"#
        return try BinaryRun.run(
            ["publish", "--store", store, "--device-name", name, "--from", "-", "--now", now],
            environment: machine(name), input: Data(input.utf8))
    }

    @Test("a clone is told on every publish, doctor fails its line, and --new-id gives it an id of its own")
    func cloneTold() throws {
        let first = try publish("studio", at: "2026-11-30T12:00:00Z")
        #expect(first.status == 0)
        #expect(!first.errors.contains("another machine"), "\(first.errors)")
        #expect(try publish("studio", at: "2026-11-30T12:01:00Z").errors.isEmpty)
        // The VM is cloned: the state folder, device id and all, is copied to a second machine.
        try FileManager.default.createDirectory(atPath: root.file("clone"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: root.file("studio/state"), toPath: root.file("clone/state"))
        let cloned = try publish("clone", at: "2026-11-30T12:02:00Z")
        #expect(cloned.status == 0)
        // The clone wrote over studio's record without being told (its memory is studio's): studio is.
        let back = try publish("studio", at: "2026-11-30T12:03:00Z")
        #expect(back.status == 0, "a warning, not a failure")
        #expect(back.errors.contains("another machine publishes as device"), "\(back.errors)")
        #expect(back.errors.contains("its record names 'clone'"), "\(back.errors)")
        #expect(back.errors.contains("aggctl devices --new-id"))
        #expect(back.errors.split(separator: "\n").count == 1, "told once: \(back.errors)")
        let again = try publish("clone", at: "2026-11-30T12:04:00Z")
        #expect(again.errors.contains("its record names 'studio'"), "\(again.errors)")

        let doctor = try BinaryRun.run(["doctor", "--store", store], environment: machine("studio"))
        #expect(doctor.output.contains("FAIL  device id"), "\(doctor.output)")

        let renewed = try BinaryRun.run(["devices", "--new-id"], environment: machine("clone"))
        #expect(renewed.status == 0, "\(renewed.errors)")
        #expect(renewed.output.contains("this machine's device id is now"), "\(renewed.output)")
        #expect(try publish("clone", at: "2026-11-30T12:05:00Z").errors.isEmpty)
        // Studio's record still holds the clone's last write under the old id: told once more, then quiet.
        #expect(try publish("studio", at: "2026-11-30T12:06:00Z").errors.contains("its record names 'clone'"))
        #expect(try publish("studio", at: "2026-11-30T12:07:00Z").errors.isEmpty)
        let records = try FileManager.default.contentsOfDirectory(atPath: store).filter { $0.hasSuffix(".json") }
        #expect(records.count == 2, "each machine has its own record now: \(records)")
        let healthy = try BinaryRun.run(["doctor", "--store", store], environment: machine("studio"))
        #expect(healthy.output.contains("ok    device id"), "\(healthy.output)")
    }
}
