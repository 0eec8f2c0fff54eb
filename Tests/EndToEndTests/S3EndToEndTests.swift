import Foundation
import Snapshots
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `aggctl` against a real SeaweedFS on 127.0.0.1, as machines, a reader and a watcher would use it.
@Suite(
    "S3 end to end",
    .enabled(
        if: S3Server.Kind.seaweedfs.isAvailable && RequiredTool.available("faketime"),
        "SeaweedFS or faketime not installed: run script/bootstrap (under CI=true a missing one fails instead)"))
struct S3EndToEndTests {
    let root = TemporaryDirectory("aggctl-s3-e2e")
    let server: S3Server
    let prefix: String

    init() throws {
        server = try S3Server.shared(.seaweedfs)
        prefix = server.makePrefix()
    }

    var store: String { "s3://\(S3Server.bucket)/\(prefix)store/" }

    /// A machine's environment: its own home and state, the server's endpoint and key, nothing inherited.
    func machine(_ name: String, _ extra: [String: String] = [:]) -> [String: String] {
        ["HOME": root.file(name), "XDG_STATE_HOME": root.file(name + "/state"), "PATH": "/usr/bin:/bin"]
            .merging(server.environment) { $1 }.merging(extra) { $1 }
    }

    func input(used: Double, at: String, resetsAt: String) -> Data {
        Data(
            #"[{"providerID": "claude", "accountEmail": "you@example.com", "lastUpdated": "\#(at)", "session": {"usedPercent": \#(used), "resetsAt": "\#(resetsAt)"}, "tokens": {"today": 100}}]"#
                .utf8)
    }

    func publish(_ device: String, used: Double, at: String, resetsAt: String = "2026-11-30T15:00:00Z") throws
        -> BinaryRun
    {
        try BinaryRun.run(
            ["publish", "--store", store, "--device-id", device, "--from", "-", "--now", at],
            environment: machine(device), input: input(used: used, at: at, resetsAt: resetsAt))
    }

    @Test("two machines publish to one bucket, status --json merges them, and nothing lands outside the prefix")
    func twoMachines() throws {
        let laptop = try publish("laptop", used: 30, at: "2026-11-30T11:50:00Z")
        let desktop = try publish("desktop", used: 45, at: "2026-11-30T11:58:00Z")
        let status = try BinaryRun.run(
            ["status", "--store", store, "--json", "--now", "2026-11-30T12:00:00Z"], environment: machine("reader"))
        for run in [laptop, desktop, status] {
            #expect(run.status == 0, "\(run.errors)")
            #expect(!(run.output + run.errors).contains(S3Server.secret))
        }
        let report = try #require(JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
        let accounts = try #require(report["accounts"] as? [[String: Any]])
        #expect(accounts.count == 1)
        #expect((accounts.first?["seenOn"] as? [String])?.sorted() == ["desktop", "laptop"])
        #expect((accounts.first?["tokens"] as? [String: Any])?["today"] as? Int == 200)
        #expect(try server.keys(under: prefix) == ["store/desktop.json", "store/laptop.json"])
    }

    @Test("a wrong secret exits 1 with a message that names neither key")
    func wrongSecret() throws {
        let run = try BinaryRun.run(
            ["status", "--store", store], environment: machine("reader", ["AWS_SECRET_ACCESS_KEY": "not-the-secret-42"])
        )
        #expect(run.status == 1)
        #expect(run.errors.contains("check the secret access key"), "\(run.errors)")
        for secret in [S3Server.accessKey, "not-the-secret-42", S3Server.secret] {
            #expect(!(run.output + run.errors).contains(secret))
        }
    }

    @Test("doctor passes every check on a working bucket, and diagnoses a clock two hours off")
    func doctor() throws {
        _ = try publish("laptop", used: 30, at: "2026-11-30T11:50:00Z")
        let healthy = try BinaryRun.run(["doctor", "--store", store], environment: machine("reader"))
        #expect(healthy.status == 0, "\(healthy.output)\(healthy.errors)")
        for check in ["endpoint", "credentials", "signature", "bucket", "listing", "write", "clock"] {
            #expect(healthy.output.contains("ok    \(check)"), "\(check): \(healthy.output)")
        }
        #expect(healthy.output.contains("from the environment (AWS_ACCESS_KEY_ID)"))
        #expect(try server.keys(under: prefix) == ["store/laptop.json"], "the probe record is gone")

        let skewed = try BinaryRun.run(
            ["-f", "-2h", BinaryRun.binary, "doctor", "--store", store], environment: machine("reader"),
            executable: "/usr/bin/faketime")
        #expect(skewed.status == 1)
        #expect(skewed.output.contains("FAIL  clock"), "\(skewed.output)")
        #expect(skewed.output.contains("this machine is 2 h 0 min behind the server's clock"), "\(skewed.output)")
        for secret in [S3Server.accessKey, S3Server.secret] {
            #expect(!(skewed.output + skewed.errors).contains(secret))
        }
    }

    @Test("watch over an S3 store fires depleted, then restored")
    func watchFires() throws {
        // The session resets at 12:00:25, after the moment watch judges at (12:00:22: not due); the record
        // dated after the reset restores at once (docs/alerts.md).
        #expect(
            try publish("laptop", used: 100, at: "2026-11-30T12:00:00Z", resetsAt: "2026-11-30T12:00:25Z").status == 0)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BinaryRun.binary)
        process.arguments = [
            "watch", "--store", store, "--interval", "0.2", "--notify", "stdout", "--now", "2026-11-30T12:00:22Z",
        ]
        process.environment = machine("watcher")
        _ = FileManager.default.createFile(atPath: root.file("out"), contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: root.file("out")))
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        func output() -> String { (try? String(contentsOfFile: root.file("out"), encoding: .utf8)) ?? "" }
        func waitFor(_ text: String) -> Bool {
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline, !output().contains(text) { usleep(50_000) }
            return output().contains(text)
        }
        #expect(waitFor("\"depleted\""), "\(output())")
        #expect(
            try publish("laptop", used: 10, at: "2026-11-30T12:00:26Z", resetsAt: "2026-11-30T17:00:00Z").status == 0)
        #expect(waitFor("\"restored\""), "\(output())")
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(output().components(separatedBy: "\"depleted\"").count == 2, "fired once")
    }
}
