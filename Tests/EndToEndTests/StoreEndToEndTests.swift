import Foundation
import Snapshots
import TestSupport
import Testing

struct StoreEndToEndTests {
    let root = TemporaryDirectory("aggctl-e2e")
    var store: String { root.file("store") }

    /// A machine's environment: its own home and state directory, nothing inherited.
    func machine(_ name: String) -> [String: String] {
        ["HOME": root.file(name), "XDG_STATE_HOME": root.file(name + "/state"), "PATH": "/usr/bin:/bin"]
    }

    func status(_ extra: [String] = []) throws -> (BinaryRun, [String: Any]) {
        let run = try BinaryRun.run(
            ["status", "--store", store, "--json", "--now", "2026-11-30T12:00:00Z"] + extra,
            environment: machine("reader"))
        let object = try #require(JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        return (run, object)
    }

    @Test("two machines publish, and status --json merges them")
    func twoMachinesMerge() throws {
        let laptopInput =
            #"{"providers": [{"providerID": "claude", "accountEmail": "You@example.com", "lastUpdated": "2026-11-30T11:50:00Z", "session": {"usedPercent": 30}, "tokens": {"today": 100}}]}"#
        let desktopInput =
            #"[{"providerID": "claude", "accountEmail": "you@example.com", "lastUpdated": "2026-11-30T11:58:00Z", "session": {"usedPercent": 45}, "tokens": {"today": 50}}]"#
        let laptop = try BinaryRun.run(
            ["publish", "--store", store, "--device-name", "laptop", "--from", "-"], environment: machine("laptop"),
            input: Data(laptopInput.utf8))
        #expect(laptop.status == 0, "\(laptop.errors)")
        let desktopFile = try root.write("desktop-usage.json", desktopInput)
        let desktop = try BinaryRun.run(
            ["publish", "--store", store, "--device-id", "desktop", "--from", desktopFile],
            environment: machine("desktop"))
        #expect(desktop.status == 0, "\(desktop.errors)")
        #expect(laptop.output.isEmpty && desktop.output.isEmpty)

        let (run, report) = try status()
        #expect(run.status == 0)
        #expect(run.errors.isEmpty)
        let accounts = try #require(report["accounts"] as? [[String: Any]])
        #expect(accounts.count == 1)
        #expect(accounts[0]["deviceID"] as? String == "desktop")
        #expect((accounts[0]["session"] as? [String: Any])?["usedPercent"] as? Double == 45)
        #expect((accounts[0]["seenOn"] as? [String])?.count == 2)
        #expect((accounts[0]["tokens"] as? [String: Any])?["today"] as? Int == 150)
        let devices = try #require(report["devices"] as? [[String: Any]])
        #expect(devices.map { $0["deviceID"] as? String }.contains("desktop"))
        #expect(devices.compactMap { $0["deviceName"] as? String }.contains("laptop"))
        #expect(root.entries("store").allSatisfy { !$0.hasPrefix(".") })
    }

    @Test("doctor on a folder store: creates nothing, a probe write leaves nothing behind, a missing parent fails")
    func doctor() throws {
        let fresh = try BinaryRun.run(["doctor", "--store", store], environment: machine("laptop"))
        #expect(fresh.status == 0, "\(fresh.output)")
        #expect(fresh.output.contains("warn  listing     the store does not exist yet"))
        #expect(fresh.output.contains("warn  write       not tried"))
        #expect(!FileManager.default.fileExists(atPath: store), "doctor created the store")
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: false)
        let healthy = try BinaryRun.run(["doctor", "--store", store], environment: machine("laptop"))
        #expect(healthy.status == 0, "\(healthy.output)")
        #expect(healthy.output.contains("ok    listing     0 records"))
        #expect(healthy.output.contains("ok    write       wrote, read back and removed a probe record"))
        #expect(healthy.output.contains("ok    clock"))
        // What a typo in --store leaves: a store this machine alone writes to, healthy in every other check.
        #expect(healthy.output.contains("warn  machines    no other machine publishes here"), "\(healthy.output)")
        #expect(root.entries("store") == [])
        try root.write(
            "store/desktop.json",
            Records.json(Records.snapshot("desktop", generatedAt: "2026-11-30T11:00:00Z", [])))
        let shared = try BinaryRun.run(["doctor", "--store", store], environment: machine("laptop"))
        #expect(shared.output.contains("ok    machines    1 other machine publishes here"), "\(shared.output)")
        try FileManager.default.removeItem(atPath: root.file("store/desktop.json"))
        let missing = try BinaryRun.run(
            ["doctor", "--store", root.file("no/such/store")], environment: machine("laptop"))
        #expect(missing.status == 1)
        #expect(missing.output.contains("FAIL  folder      neither"))
        #expect(missing.output.contains("fix: create '\(root.file("no/such"))'"))
    }

    @Test("broken, hostile and oversized records are each a problem, and the good record still merges")
    func hostileStore() throws {
        let good =
            #"[{"providerID": "codex", "accountEmail": "me@x", "lastUpdated": "2026-11-30T11:59:00Z", "session": {"usedPercent": 5}}]"#
        let publish = try BinaryRun.run(
            ["publish", "--store", store, "--device-id", "good", "--from", "-"], environment: machine("good"),
            input: Data(good.utf8))
        #expect(publish.status == 0)
        let record =
            #"{"generatedAt": "2026-11-30T11:00:00Z", "providers": [{"providerID": "claude", "lastUpdated": "2026-11-30T11:00:00Z"}]}"#
        try root.write("store/broken.json", "{\"deviceID\": \"broken\", \"generatedAt\": ")
        try root.write("store/escape.json", "{\"deviceID\": \"../escape\", " + record.dropFirst())
        try root.write(
            "store/nested.json", "{\"deviceID\": \"nested\", \"x\": " + String(repeating: "[", count: 400_000) + "}")
        var huge = Data("{\"deviceID\": \"huge\", \"pad\": \"".utf8)
        huge.append(Data(repeating: 0x61, count: 33 * 1024 * 1024))
        huge.append(Data("\"}".utf8))
        try root.write("store/huge.json", huge)
        try root.write("store/notes.txt", "not a record")

        let (run, report) = try status()
        #expect(run.status == 0)
        let problems = try #require(report["problems"] as? [[String: String]])
        #expect(problems.map { $0["file"] } == ["broken.json", "escape.json", "huge.json", "nested.json"])
        #expect(problems[0]["reason"] == "not valid JSON (at byte 38)")
        #expect(problems[1]["reason"] == "invalid deviceID '../escape': a device id cannot start with '.'")
        #expect(problems[2]["reason"]?.contains("over the 32 MiB limit; not read") == true)
        #expect(problems[3]["reason"] == "nested deeper than 512 arrays and objects (at byte 540); not read")
        let accounts = try #require(report["accounts"] as? [[String: Any]])
        #expect(accounts.map { $0["deviceID"] as? String } == ["good"])

        let table = try BinaryRun.run(["status", "--store", store], environment: machine("reader"))
        #expect(table.status == 0)
        #expect(table.errors.split(separator: "\n").count == 4)
        #expect(table.errors.contains("aggctl: warning: 'huge.json': "))
    }

    @Test("unknown flags and bad dates exit 2 naming the flag; a missing store exits 1")
    func exitCodes() throws {
        let unknown = try BinaryRun.run(["status", "--store", store, "--colour"], environment: machine("reader"))
        #expect(unknown.status == 2)
        #expect(unknown.errors.hasPrefix("aggctl: error: unknown flag '--colour' for 'status'"))
        let badDate = try BinaryRun.run(["status", "--store", store, "--now=noon"], environment: machine("reader"))
        #expect(badDate.status == 2)
        #expect(badDate.errors.contains("--now: 'noon' is not a date"))
        let missing = try BinaryRun.run(["status", "--store", store], environment: machine("reader"))
        #expect(missing.status == 1)
        #expect(missing.errors == "aggctl: error: store '\(store)' does not exist\n")
        #expect(missing.output.isEmpty)
    }

    @Test("a reader that closes the pipe early is a normal end, not a crash")
    func closedPipe() throws {
        let examples = Repository.path("Examples/store")
        let run = try BinaryRun.run(
            [
                "-c", "\"$0\" status --store \"$1\" --json | head -c 10 >/dev/null; echo \"${PIPESTATUS[0]}\"",
                BinaryRun.binary, examples,
            ],
            environment: ["PATH": "/usr/bin:/bin"], shell: true)
        #expect(run.output.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }

    @Test("--version prints the version")
    func version() throws {
        let run = try BinaryRun.run(["--version"], environment: [:])
        #expect(run.status == 0)
        #expect(run.output.hasPrefix("aggctl "))
    }
}
