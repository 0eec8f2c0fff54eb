import Foundation
import Serialization
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

    @Test("SIGHUP ends watch as the system ends a program (129 in a shell); the next run delivers nothing twice")
    func endsOnSIGHUP() throws {
        try publish("2026-11-30T12:00:00Z", used: 100)
        let state = root.file("state")
        let arguments = [
            "--store", root.file("store"), "--state-dir", state, "--interval", "60", "--notify", "stdout",
            "--now", "2026-11-30T12:00:30Z",
        ]
        let watch = try start(arguments)
        defer { if watch.isRunning { kill(watch.processIdentifier, SIGKILL) } }
        #expect(waitFor(30) { text("out").contains("\"depleted\"") }, "\(text("err"))")
        kill(watch.processIdentifier, SIGHUP)
        watch.waitUntilExit()
        #expect(watch.terminationReason == .uncaughtSignal && watch.terminationStatus == SIGHUP)
        let again = try BinaryRun.run(
            ["check"] + arguments.filter { $0 != "--interval" && $0 != "60" },
            environment: ["HOME": root.path, "PATH": "/usr/bin:/bin"])
        #expect(again.status == 0 && again.output.isEmpty, "the event went out once: \(again.output)")
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
        /// Rounds are counted, not waited for: each round the test publishes the next state of one of the
        /// 500 records and waits until `watch` has delivered its event, then samples the resident size
        /// every 25 rounds and judges the slope of a line through the samples, not one difference.
        @Test("watch's memory stays flat over 200 rounds of a changing 500-record store, judged by its slope")
        func memoryStaysFlat() throws {
            // Each state a minute after the last, its window reset a second after: every one newer, and a
            // restore never held. The watch judges at a moment before all of them, with a skew tolerance
            // wider than the run: no window is due, no entry skewed.
            func stamp(_ round: Int) -> String {
                RFC3339.format(Date(timeIntervalSince1970: 1_796_040_000 + Double(round) * 60))
            }
            func publish(_ index: Int, round: Int, used: Double) throws {
                let at = stamp(round)
                let entry = Records.entry(
                    email: "user\(index)@example.com", at: at, sessionUsed: used,
                    resetsAt: RFC3339.format(Date(timeIntervalSince1970: 1_796_040_001 + Double(round) * 60)))
                try root.write(
                    "store/device-\(index).json",
                    Records.json(Records.snapshot("device-\(index)", generatedAt: at, [entry])))
            }
            for index in 0..<500 { try publish(index, round: 0, used: 30) }
            let watch = try start([
                "--store", root.file("store"), "--state-dir", root.file("state"), "--interval", "0.1",
                "--notify", "stdout", "--now", "2026-11-30T00:00:00Z", "--max-skew", "999999999", "--stale-after",
                "999999999",
            ])
            defer { if watch.isRunning { kill(watch.processIdentifier, SIGKILL) } }
            var samples: [(round: Double, kib: Double)] = []
            for round in 1...225 {
                // Depleted on odd rounds, restored on even ones: one event a round.
                try publish(0, round: round, used: round % 2 == 1 ? 100 : 30)
                let delivered = waitFor(30) {
                    text("out").split(separator: "\n").count >= round
                }
                try #require(delivered, "round \(round): \(text("err"))")
                // The first 25 rounds warm the caches and the allocator up.
                if round >= 25, round % 25 == 0, let kib = residentKiB(watch.processIdentifier) {
                    samples.append((Double(round), Double(kib)))
                }
            }
            let meanRound = samples.map(\.round).reduce(0, +) / Double(samples.count)
            let meanKiB = samples.map(\.kib).reduce(0, +) / Double(samples.count)
            let spread = samples.map { ($0.round - meanRound) * ($0.round - meanRound) }.reduce(0, +)
            let slope = samples.map { ($0.round - meanRound) * ($0.kib - meanKiB) }.reduce(0, +) / spread
            // A merge kept per round grew this store by about 1 MB a round: 100 MB per 100 rounds.
            #expect(
                slope * 100 < 2_048, "grew \(Int(slope * 100)) KiB per 100 rounds: \(samples.map { Int($0.kib) })")
            #expect(watch.isRunning, "\(text("err"))")
            kill(watch.processIdentifier, SIGTERM)
            watch.waitUntilExit()
        }
    #endif
}
