import Foundation
import Snapshots
import TestSupport
import Testing

/// Text for people names a device by its name, never its id (docs/choices.md, "Names for people").
struct NamesEndToEndTests {
    let root = TemporaryDirectory("aggctl-names")

    func publish(_ id: String, name: String, used: Double) throws {
        var entry = Records.entry(
            "codex", email: nil, at: "2026-11-30T11:50:00Z", sessionUsed: used, resetsAt: "2026-11-30T14:00:00Z")
        entry.tokens = TokenUsage(today: 10, last30Days: 10, daily: [DailyTokens(date: "2026-11-30", tokens: 10)])
        try root.write(
            "store/\(id).json",
            Records.json(Records.snapshot(id, generatedAt: "2026-11-30T11:50:00Z", name: name, [entry])))
    }

    @Test("accounts without an e-mail are told apart by their machine's name in the status line and the report")
    func deviceNames() throws {
        try publish("vm-44a9a822", name: "cloud-box", used: 100)
        try publish("lap-0001", name: "laptop", used: 20)
        let environment = ["HOME": root.file("home"), "PATH": "/usr/bin:/bin"]
        let line = try BinaryRun.run(
            ["status", "--store", root.file("store"), "--format", "line", "--now", "2026-11-30T12:00:00Z"],
            environment: environment)
        #expect(line.output.contains("Codex (cloud-box)") && line.output.contains("Codex (laptop)"), "\(line.output)")
        #expect(!line.output.contains("vm-44a9a822"))
        let report = try BinaryRun.run(
            [
                "report", "--store", root.file("store"), "--out", root.file("report.html"), "--now",
                "2026-11-30T12:00:00Z",
            ], environment: environment)
        #expect(report.status == 0, "\(report.errors)")
        let page = try String(contentsOfFile: root.file("report.html"), encoding: .utf8)
        #expect(page.contains("(no e-mail, cloud-box)"))
        #expect(page.contains("</span>cloud-box</li>"), "the chart's legend names the machine")
    }
}
