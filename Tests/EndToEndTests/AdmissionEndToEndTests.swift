import Foundation
import Snapshots
import TestSupport
import Testing

/// Every collector's output passes the record's validation before it is written (README, "Collectors"): what
/// Claude Code hands the status line and what an `auth.json` says are outside input too.
struct AdmissionEndToEndTests {
    let root = TemporaryDirectory("aggctl-admission")
    var environment: [String: String] {
        ["HOME": root.file("home"), "XDG_STATE_HOME": root.file("state"), "PATH": "/usr/bin:/bin"]
    }

    func record(_ run: BinaryRun) throws -> [ProviderUsage] {
        try RecordCodec.decode(Data(run.output.utf8), fileName: "x.json").snapshot.providers
    }

    @Test(
        "a status line's percent that is no percent, or a reset in the year 1 or 5138, never reaches a record",
        arguments: [
            (#""used_percentage": 1790000000, "resets_at": 1796050000"#, false),
            (#""used_percentage": 1e308, "resets_at": 1796050000"#, false),
            (#""used_percentage": -50, "resets_at": 1796050000"#, false),
            (#""used_percentage": 40, "resets_at": -62135596800"#, true),
            (#""used_percentage": 40, "resets_at": 99999999999"#, true),
        ])
    func statusLineHeldToTheRecord(_ window: String, _ kept: Bool) throws {
        let input = #"{"session_id": "s", "rate_limits": {"five_hour": {\#(window)}}}"#
        let line = try BinaryRun.run(
            ["statusline", "--now", "2026-11-30T12:00:00Z"], environment: environment, input: Data(input.utf8))
        #expect(line.status == 0)
        try root.write("claude/projects/-home-dev/s.jsonl", "")
        let published = try BinaryRun.run(
            ["publish", "--dry-run", "--now", "2026-11-30T12:00:01Z", "--source", "claude:" + root.file("claude")],
            environment: environment)
        #expect(published.status == 0, "\(published.errors)")
        let session = try record(published).first?.session
        #expect((session != nil) == kept, "\(window): \(String(describing: session))")
        if let session {
            #expect(session.usedPercent == 40)
            #expect(session.resetsAt == nil, "a reset out of range is left out")
        }
    }

    @Test("an auth.json whose e-mail and plan hold ESC and BEL publishes them without, and says so")
    func controlCharactersRemoved() throws {
        let claims =
            #"{"email": "dev\u001b[2J@example.com", "https://api.openai.com/auth": {"chatgpt_plan_type": "pro\u0007"}}"#
        let payload = Data(claims.utf8).base64EncodedString().replacing("=", with: "").replacing("+", with: "-")
            .replacing("/", with: "_")
        let token = "eyJhbGciOiAiUlMyNTYifQ.\(payload).c2ln"
        try FileManager.default.copyItem(
            atPath: Repository.path("Tests/CollectorsTests/Fixtures/codex-home"), toPath: root.file("codex"))
        try root.write("codex/auth.json", #"{"tokens": {"id_token": "\#(token)"}}"#)
        let run = try BinaryRun.run(
            ["publish", "--dry-run", "--now", "2026-11-30T12:00:00Z", "--source", "codex:" + root.file("codex")],
            environment: environment)
        #expect(run.status == 0, "\(run.errors)")
        let entry = try #require(try record(run).first)
        #expect(entry.accountEmail == "dev[2J@example.com")
        #expect(entry.plan == "pro")
        #expect(run.errors.contains("accountEmail held control characters; they are removed"), "\(run.errors)")
        #expect(!run.errors.unicodeScalars.contains("\u{1B}"))
    }
}
