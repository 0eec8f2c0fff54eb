import Foundation
import Snapshots
import TestSupport
import Testing

/// `aggctl watch` as a user service runs it, stopped with real signals.
struct WatchEndToEndTests {
    let root = TemporaryDirectory("aggctl-watch")

    func publish(_ lastUpdated: String, used: Double) throws {
        let entry = Records.entry(at: lastUpdated, sessionUsed: used, resetsAt: "2026-11-30T15:00:00Z")
        try root.write("store/laptop.json", Records.json(Records.snapshot("laptop", generatedAt: lastUpdated, [entry])))
    }

    /// Starts `aggctl watch` with its output going to files.
    func start(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BinaryRun.binary)
        process.arguments = ["watch"] + arguments
        process.environment = ["HOME": root.path, "PATH": "/usr/bin:/bin"]
        _ = FileManager.default.createFile(atPath: root.file("out"), contents: nil)
        _ = FileManager.default.createFile(atPath: root.file("err"), contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: root.file("out")))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: root.file("err")))
        try process.run()
        return process
    }

    func waitFor(_ seconds: TimeInterval, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }

    func text(_ name: String) -> String {
        (try? String(contentsOfFile: root.file(name), encoding: .utf8)) ?? ""
    }

    @Test("watch stops cleanly on SIGTERM within a second, with its state saved")
    func stopsOnSIGTERM() throws {
        try publish("2026-11-30T12:00:00Z", used: 100)
        let state = root.file("state")
        let watch = try start([
            "--store", root.file("store"), "--state-dir", state, "--interval", "60", "--notify", "stdout",
            "--now", "2026-11-30T12:00:30Z",
        ])
        defer { if watch.isRunning { kill(watch.processIdentifier, SIGKILL) } }
        #expect(waitFor(30) { text("out").contains("\"depleted\"") }, "\(text("err"))")
        let sent = Date()
        kill(watch.processIdentifier, SIGTERM)
        #expect(waitFor(5) { !watch.isRunning })
        #expect(Date().timeIntervalSince(sent) < 1)
        watch.waitUntilExit()
        #expect(watch.terminationStatus == 0)
        let saved = try Data(contentsOf: URL(fileURLWithPath: state + "/alerts.json"))
        let object = try JSONSerialization.jsonObject(with: saved) as? [String: Any]
        #expect((object?["accounts"] as? [String: Any])?.count == 1)
        #expect((object?["outbox"] as? [Any])?.isEmpty == true)
    }

    @Test("a store that cannot be read in one round is reported, and the next round tries again")
    func brokenRoundIsNotFatal() throws {
        let watch = try start([
            "--store", root.file("store"), "--state-dir", root.file("state"), "--interval", "0.2",
            "--notify", "stdout", "--now", "2026-11-30T12:00:30Z",
        ])
        defer { if watch.isRunning { kill(watch.processIdentifier, SIGKILL) } }
        #expect(waitFor(30) { text("err").contains("does not exist") })
        #expect(watch.isRunning)
        try publish("2026-11-30T12:00:00Z", used: 100)
        #expect(waitFor(30) { text("out").contains("\"depleted\"") }, "\(text("err"))")
        kill(watch.processIdentifier, SIGINT)
        #expect(waitFor(5) { !watch.isRunning })
        watch.waitUntilExit()
        #expect(watch.terminationStatus == 0)
        #expect(text("out").components(separatedBy: "\"depleted\"").count == 2)
    }

    /// The resident memory of `pid` in KiB (Linux).
    func residentKiB(_ pid: Int32) -> Int? {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        return line?.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }

    #if os(Linux)
        @Test("watch's memory stays flat over hundreds of rounds of a 500-record store (30 s at 0.1 s)")
        func memoryStaysFlat() throws {
            for index in 0..<500 {
                let entry = Records.entry(
                    email: "user\(index)@example.com", at: "2026-11-30T12:00:00Z", sessionUsed: 30)
                try root.write(
                    "store/device-\(index).json",
                    Records.json(Records.snapshot("device-\(index)", generatedAt: "2026-11-30T12:00:00Z", [entry])))
            }
            let watch = try start([
                "--store", root.file("store"), "--state-dir", root.file("state"), "--interval", "0.1",
                "--notify", "stdout", "--now", "2026-11-30T12:00:30Z",
            ])
            defer { if watch.isRunning { kill(watch.processIdentifier, SIGKILL) } }
            // Warmed up: caches built, the memo written, the allocator at its working size.
            Thread.sleep(forTimeInterval: 4)
            let early = try #require(residentKiB(watch.processIdentifier))
            let rounds = Date()
            Thread.sleep(forTimeInterval: 30)
            let late = try #require(residentKiB(watch.processIdentifier))
            // At 0.1 s apart and a few ms a round, that was two hundred rounds and more; a merge kept per
            // round grew this store by about 1 MB each.
            #expect(
                late - early < 8_192, "grew from \(early) KiB to \(late) KiB in \(Date().timeIntervalSince(rounds)) s")
            #expect(watch.isRunning, "\(text("err"))")
            kill(watch.processIdentifier, SIGTERM)
            watch.waitUntilExit()
        }
    #endif
}
