import Foundation
import Snapshots
import TestSupport
import Testing

/// `serve` with an answer far larger than a socket's buffers (a record of 20 000 limits): sent whole to
/// many readers at once from one copy, and cut off for a reader that takes it too slowly.
struct ServeLargeAnswerEndToEndTests {
    let serving = ServeEndToEndTests()

    func publishLarge() throws {
        var entry = Records.entry(
            "claude", email: "large@example.com", at: "2026-11-30T11:50:00Z", sessionUsed: 40,
            resetsAt: "2026-11-30T15:00:00Z")
        entry.limits = (0..<20_000).map { index in
            Limit(
                id: "pool-\(index)", label: "Pool \(index)", windowMinutes: 43_200, usedPercent: Double(index % 101),
                used: Double(index % 300), limit: 300, unit: "requests")
        }
        let record = Records.snapshot("big", generatedAt: "2026-11-30T11:50:00Z", [entry])
        try serving.root.write("store/big.json", Records.json(record))
    }

    @Test(
        "eight readers at once each get the whole answer, the same bytes as status --json; HEAD gets none",
        .enabled(if: RequiredTool.available("curl")))
    func manyReaders() throws {
        try publishLarge()
        let server = try serving.serve(["--now", "2026-11-30T12:00:00Z"], binary: ReleaseBuild.binary)
        defer { kill(server.process.processIdentifier, SIGTERM) }
        try #require(serving.waitFor(30) { (try? serving.curl([server.origin + "/healthz"]).code) == 200 })
        let direct = try BinaryRun.run(
            ["status", "--store", serving.root.file("store"), "--json", "--now", "2026-11-30T12:00:00Z"],
            environment: serving.environment)
        try #require(direct.output.utf8.count > 4_000_000, "large enough to outlast the socket's buffers")
        let readers = try (0..<8).map { index in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            process.arguments = [
                "-s", "--max-time", "60", "-o", serving.root.file("answer-\(index)"), server.origin + "/api/status",
            ]
            try process.run()
            return process
        }
        for reader in readers { reader.waitUntilExit() }
        for index in 0..<8 {
            let answer = serving.text("answer-\(index)")
            #expect(answer.utf8.count == direct.output.utf8.count, "reader \(index) got every byte")
            #expect(answer == direct.output ? true : false, "reader \(index) got the same bytes")
        }
        let head = try serving.curl(["-I", server.origin + "/api/status"])
        #expect(head.code == 200)
        #expect(!head.body.contains("pool-0"), "HEAD gets no body")
        #expect(head.headers.contains("Content-Length: \(direct.output.utf8.count)"))
    }

    @Test(
        "a reader that takes a large answer a kilobyte at a time is cut off at the answer's time limit",
        .enabled(if: RequiredTool.available("python3")))
    func slowReaderCutOff() throws {
        try publishLarge()
        let server = try serving.serve(
            ["--now", "2026-11-30T12:00:00Z"], extra: ["AGGCTL_SERVE_ANSWER_TIMEOUT": "3"], binary: ReleaseBuild.binary)
        defer { kill(server.process.processIdentifier, SIGTERM) }
        try #require(serving.waitFor(30) { (try? serving.curl([server.origin + "/healthz"]).code) == 200 })
        let port = server.origin.split(separator: ":").last.map(String.init) ?? ""
        let run = try BinaryRun.run(
            [Repository.path("Tests/Serve/slow_reader.py"), "127.0.0.1", port, "/api/status"],
            environment: serving.environment, executable: "/usr/bin/python3", timeout: 90)
        let found = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        let cut = try #require(found["cut"] as? Double, "never cut off: \(found)")
        #expect(cut >= 3 && cut <= 3 + 3, "cut off after \(cut) s")
        #expect(try serving.curl([server.origin + "/healthz"]).code == 200, "still answering")
    }
}
