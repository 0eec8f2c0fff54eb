import Foundation
import Snapshots
import TestSupport
import Testing

/// Times in words read by the binaries that ship, under three machine zones: the test process links full
/// Foundation, whose zones work, while the release binary links FoundationEssentials, whose zones do not
/// exist; only a run of the binary tells what a user gets.
struct TimeZoneEndToEndTests {
    let root = TemporaryDirectory("aggctl-zones")

    static let zones = ["UTC", "America/Los_Angeles", "Asia/Kolkata"]
    /// The release build when there is one (CI builds it first; it must be there), and the debug build.
    static let binaries: [String] =
        [BinaryRun.binary] + (ReleaseBuild.available ? [ReleaseBuild.binary] : [])
    static let cases: [(String, String)] = binaries.flatMap { binary in zones.map { (binary, $0) } }

    func publish(_ sources: [String], zone: String, binary: String, extra: [String: String] = [:]) throws
        -> ProviderUsageByID
    {
        let run = try BinaryRun.run(
            ["publish", "--dry-run", "--now", "2026-11-30T12:00:00Z"] + sources.flatMap { ["--source", $0] },
            environment: [
                "HOME": root.file("home"), "XDG_STATE_HOME": root.file("state"), "PATH": "/usr/bin:/bin", "TZ": zone,
            ].merging(extra) { $1 }, executable: binary)
        #expect(run.status == 0, "\(binary) TZ=\(zone): \(run.errors)")
        let record = try RecordCodec.decode(Data(run.output.utf8), fileName: "x.json")
        return ProviderUsageByID(record.snapshot.providers)
    }

    /// A Claude log with one limit message of `text` at 2026-11-30T11:00:00Z.
    func claudeHome(_ text: String) throws -> String {
        let line =
            #"{"type":"assistant","timestamp":"2026-11-30T11:00:00.000Z","isApiErrorMessage":true,"error":"rate_limit","requestId":"req_b","message":{"id":"msg_b","role":"assistant","model":"<synthetic>","content":[{"type":"text","text":"\#(text)"}],"usage":{"input_tokens":0,"output_tokens":0}}}"#
        let folder = "claude-\(UUID().uuidString.prefix(8))"
        try root.write("\(folder)/projects/-home-dev/s1.jsonl", line + "\n")
        return root.file(folder)
    }

    @Test("a Claude message naming its zone resets at that zone's time, whatever the machine's", arguments: cases)
    func claudeNamedZone(binary: String, zone: String) throws {
        let home = try claudeHome("You've hit your session limit · resets 3pm (America/Los_Angeles)")
        let entry = try publish(["claude:\(home)"], zone: zone, binary: binary)["claude"]
        // 3pm in Los Angeles on 2026-11-30 (PST, UTC-8) is 23:00 UTC.
        #expect(entry?.session?.resetsAt == Records.date("2026-11-30T23:00:00Z"), "\(binary) TZ=\(zone)")
        #expect(entry?.session?.usedPercent == 100)
    }

    @Test("Codex's 'try again at' and claude.ai's 'reset at' are the machine's time", arguments: cases)
    func machineZone(binary: String, zone: String) throws {
        let codex = "codex-\(UUID().uuidString.prefix(8))"
        try root.write(
            "\(codex)/sessions/2026/11/30/rollout-2026-11-30T09-00-00-f.jsonl",
            #"{"timestamp":"2026-11-30T11:00:00.000Z","type":"event_msg","payload":{"type":"task_complete","error":{"message":"You've hit your usage limit; try again at Dec 1st, 2026 2:16 AM.","codex_error_info":"usage_limit_exceeded"}}}"#
                + "\n")
        let claude = try claudeHome("You've hit your limit for Claude messages. Limits will reset at 9:30 PM.")
        let entries = try publish(["codex:\(root.file(codex))", "claude:\(claude)"], zone: zone, binary: binary)
        // 2026-12-01 02:16 on the machine's clock; 21:30 on 2026-11-30 (the next such time after 11:00 UTC).
        let expected: [String: (codex: String, claude: String)] = [
            "UTC": ("2026-12-01T02:16:00Z", "2026-11-30T21:30:00Z"),
            "America/Los_Angeles": ("2026-12-01T10:16:00Z", "2026-12-01T05:30:00Z"),
            "Asia/Kolkata": ("2026-11-30T20:46:00Z", "2026-11-30T16:00:00Z"),
        ]
        #expect(
            entries["codex"]?.session?.resetsAt == expected[zone].map { Records.date($0.codex) }, "\(binary) TZ=\(zone)"
        )
        #expect(
            entries["claude"]?.session?.resetsAt == expected[zone].map { Records.date($0.claude) },
            "\(binary) TZ=\(zone)")
    }

    @Test("the report says when it was made in the reader's zone, the zone named", arguments: cases)
    func reportInReadersZone(binary: String, zone: String) throws {
        let entry = Records.entry(email: "you@example.com", at: "2026-11-30T11:00:00Z", sessionUsed: 40)
        try root.write(
            "store/laptop.json", Records.json(Records.snapshot("laptop", generatedAt: "2026-11-30T11:00:00Z", [entry])))
        let run = try BinaryRun.run(
            ["report", "--store", root.file("store"), "--out", "-", "--now", "2026-11-30T12:00:00Z"],
            environment: ["HOME": root.file("home"), "XDG_STATE_HOME": root.file("state-\(zone)"), "TZ": zone],
            executable: binary)
        #expect(run.status == 0, "\(binary) TZ=\(zone): \(run.errors)")
        let expected = [
            "UTC": "2026-11-30 12:00 UTC", "America/Los_Angeles": "2026-11-30 04:00 America/Los_Angeles",
            "Asia/Kolkata": "2026-11-30 17:30 Asia/Kolkata",
        ]
        #expect(
            run.output.contains(#"as of <time datetime="2026-11-30T12:00:00Z">\#(expected[zone] ?? "?")</time>"#),
            "\(binary) TZ=\(zone)")
    }

    @Test("Copilot's date-only reset is a calendar month in UTC, and never crashes the run", arguments: cases)
    func copilotMonth(binary: String, zone: String) throws {
        let origin = try LocalServer.sharedHTTPServer().origin
        try root.write(
            "gh/hosts.yml",
            "github.com:\n    user: octo-dev\n    oauth_token: gho_EXAMPLE_NOT_A_REAL_TOKEN\n    git_protocol: https\n")
        let entry = try publish(
            ["copilot-api"], zone: zone, binary: binary,
            extra: ["GH_CONFIG_DIR": root.file("gh"), "AGGCTL_COPILOT_API_URL": "\(origin)/usage-api/ok"])["copilot"]
        let premium = entry?.limits?.first { $0.id == "premium-monthly" }
        #expect(premium?.resetsAt == Records.date("2026-12-01T00:00:00Z"), "\(binary) TZ=\(zone)")
        #expect(premium?.windowMinutes == 30 * 1440)
        #expect(entry?.weekly == nil, "a month is never the weekly window")
    }
}

/// A record's provider entries by provider id.
struct ProviderUsageByID {
    let entries: [ProviderUsage]
    init(_ entries: [ProviderUsage]) { self.entries = entries }
    subscript(_ id: String) -> ProviderUsage? { entries.first { $0.providerID == id } }
}
