import Foundation
import Serialization
import Snapshots
import TestSupport
import Testing

/// The first publish on a machine carries what the Codex logs already hold of its windows: the first
/// report draws the days the logs cover, not one dot.
struct FirstPublishHistoryEndToEndTests {
    let root = TemporaryDirectory("aggctl-first-history")

    /// Three days of Codex sessions, an event every hour, the week's percent growing. The lines are
    /// `token_count` events as openai/codex writes them (codex-rs/protocol/src/protocol.rs at edb4efee:
    /// `rate_limits.primary`/`secondary` are `RateLimitWindow {used_percent, window_minutes, resets_at}`,
    /// resets in epoch seconds), the shape of Tests/CollectorsTests/RealWorld/codex.
    func writeLogs() throws {
        let start = Records.date("2026-11-27T09:00:00Z").timeIntervalSince1970
        var lines: [String] = []
        for hour in 0..<72 {
            let at = Date(timeIntervalSince1970: start + Double(hour) * 3600)
            let session = Double(hour % 5) * 20
            let week = Double(hour) / 72 * 60
            let sessionReset = Int(start) + (hour / 5 + 1) * 5 * 3600
            lines.append(
                #"{"timestamp":"\#(RFC3339.format(at))","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":100,"output_tokens":10,"total_tokens":110}},"rate_limits":{"primary":{"used_percent":\#(session),"window_minutes":300,"resets_at":\#(sessionReset)},"secondary":{"used_percent":\#(week),"window_minutes":10080,"resets_at":1796400000}}}}"#
            )
        }
        try root.write(
            "home/.codex/sessions/2026/11/27/rollout-2026-11-27T09-00-00-a.jsonl", lines.joined(separator: "\n") + "\n")
    }

    func publish(_ now: String) throws -> BinaryRun {
        try BinaryRun.run(
            ["publish", "--store", root.file("store"), "--source", "codex", "--device-id", "box", "--now", now],
            environment: ["HOME": root.file("home"), "XDG_STATE_HOME": root.file("state"), "PATH": "/usr/bin:/bin"])
    }

    @Test("the first publish's record holds three days of the logs' windows; the next adds only what is new")
    func firstPublish() throws {
        try writeLogs()
        let first = try publish("2026-11-30T09:30:00Z")
        #expect(first.status == 0, "\(first.errors)")
        let record = try RecordCodec.decode(
            try Data(contentsOf: URL(fileURLWithPath: root.file("store/box.json"))), fileName: "box.json")
        let entry = try #require(record.snapshot.providers.first)
        let weekly = entry.weeklySamples ?? []
        let days = Set(weekly.map { RFC3339.utcDay($0.at) })
        #expect(days.count >= 3, "\(days.sorted())")
        #expect((entry.sessionSamples ?? []).count > 10)
        #expect(weekly.map(\.at) == weekly.map(\.at).sorted(), "in time order")
        let second = try publish("2026-11-30T09:31:00Z")
        #expect(second.status == 0)
        let again = try RecordCodec.decode(
            try Data(contentsOf: URL(fileURLWithPath: root.file("store/box.json"))), fileName: "box.json")
        #expect(again.snapshot.providers.first?.weeklySamples == entry.weeklySamples, "nothing twice")
    }

    @Test("the first Claude publish carries the logs' limit messages: the session used up until each reset")
    func claudeLimitMessages() throws {
        // Tests/CollectorsTests/Fixtures/claude-home: three days of Claude Code sessions with one
        // "Claude AI usage limit reached|1795874400" line at 2026-11-28T12:09:14Z, responses after it.
        try FileManager.default.createDirectory(atPath: root.file("home"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: Repository.path("Tests/CollectorsTests/Fixtures/claude-home"), toPath: root.file("home/.claude"))
        let run = try BinaryRun.run(
            [
                "publish", "--store", root.file("store"), "--source", "claude", "--device-id", "box", "--now",
                "2026-11-30T09:30:00Z",
            ],
            environment: ["HOME": root.file("home"), "XDG_STATE_HOME": root.file("state"), "PATH": "/usr/bin:/bin"])
        #expect(run.status == 0, "\(run.errors)")
        let record = try RecordCodec.decode(
            try Data(contentsOf: URL(fileURLWithPath: root.file("store/box.json"))), fileName: "box.json")
        let samples = record.snapshot.providers.first?.sessionSamples ?? []
        #expect(
            samples.contains {
                $0.usedPercent == 100 && $0.resetsAt == Records.date("2026-11-28T14:00:00Z")
                    && abs($0.at.timeIntervalSince(Records.date("2026-11-28T12:09:14Z"))) < 1
            }, "\(samples)")
    }
}
