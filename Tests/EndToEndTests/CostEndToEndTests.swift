import Foundation
import TestSupport
import Testing

/// What a person sees of cost after publishing real-shaped logs through the binary: Claude's Opus 4.6 at
/// its own price (not Opus 4's by a shared prefix), an hour's cache writes at their rate, Codex priced
/// by its turn's model, and a model the table does not name counting its tokens at no cost.
struct CostEndToEndTests {
    let root = TemporaryDirectory("aggctl-cost")
    var environment: [String: String] {
        [
            "HOME": root.file("home"), "XDG_STATE_HOME": root.file("state"), "XDG_CONFIG_HOME": root.file("config"),
            "PATH": "/usr/bin:/bin",
        ]
    }

    /// The release build when there is one (CI builds it first; it must be there), and the debug build: the
    /// bundled price table is read by the binary that ships.
    static let binaries: [String] = [BinaryRun.binary] + (ReleaseBuild.available ? [ReleaseBuild.binary] : [])

    @Test("status --json shows each account's cost at its models' own prices", arguments: binaries)
    func costsThroughPublishAndStatus(_ binary: String) throws {
        // Claude Code's assistant lines: Opus 4.6, 1M input ($5); 1000 tokens cached for an hour ($10/M).
        try root.write(
            "claude/projects/p/session.jsonl",
            [
                #"{"type":"assistant","timestamp":"2026-11-30T10:00:00Z","requestId":"r1","message":{"id":"m1","model":"claude-opus-4-6","usage":{"input_tokens":1000000,"output_tokens":0}}}"#,
                #"{"type":"assistant","timestamp":"2026-11-30T10:01:00Z","requestId":"r2","message":{"id":"m2","model":"claude-opus-4-6","usage":{"input_tokens":0,"output_tokens":0,"cache_creation_input_tokens":1000,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":1000}}}}"#,
                #"{"type":"assistant","timestamp":"2026-11-30T10:02:00Z","requestId":"r3","message":{"id":"m3","model":"claude-unreleased-9","usage":{"input_tokens":500,"output_tokens":0}}}"#,
            ].joined(separator: "\n") + "\n")
        // Codex: a turn on GPT-5 mini, then a count of 10 in and 2 out ($0.0000065, ccusage's figure).
        try root.write(
            "codex/sessions/2026/11/30/rollout-2026-11-30T10-00-00-a.jsonl",
            [
                #"{"timestamp":"2026-11-30T10:00:00.000Z","type":"turn_context","payload":{"cwd":"/w","model":"gpt-5-mini"}}"#,
                #"{"timestamp":"2026-11-30T10:00:01.000Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":2,"reasoning_output_tokens":0,"total_tokens":12}}}}"#,
            ].joined(separator: "\n") + "\n")
        let publish = try BinaryRun.run(
            [
                "publish", "--store", root.file("store"), "--device-id", "laptop", "--source",
                "claude:\(root.file("claude"))", "--source", "codex:\(root.file("codex"))", "--now",
                "2026-11-30T12:00:00Z",
            ], environment: environment, executable: binary)
        #expect(publish.status == 0, "\(publish.errors)")
        let status = try BinaryRun.run(
            ["status", "--json", "--store", root.file("store"), "--now", "2026-11-30T12:00:00Z"],
            environment: environment, executable: binary)
        let document = try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as! [String: Any]
        let accounts = document["accounts"] as! [[String: Any]]
        func cost(_ provider: String) -> Double? {
            let account = accounts.first { $0["providerID"] as? String == provider }
            return (account?["costUSD"] as? [String: Any])?["today"] as? Double
        }
        func tokens(_ provider: String) -> Int? {
            let account = accounts.first { $0["providerID"] as? String == provider }
            return (account?["tokens"] as? [String: Any])?["today"] as? Int
        }
        #expect(abs((cost("claude") ?? 0) - (5 + 0.01)) < 1e-9)
        #expect(tokens("claude") == 1_000_000 + 1000 + 500)
        #expect(abs((cost("codex") ?? 0) - 6.5e-6) < 1e-15)
        #expect(tokens("codex") == 12)
    }

    @Test("a damaged overrides file is one warning naming it; the logs are priced by the table all the same")
    func damagedOverrides() throws {
        try root.write("config/aggctl/prices.json", "{not json")
        try root.write(
            "claude/projects/p/session.jsonl",
            #"{"type":"assistant","timestamp":"2026-11-30T10:00:00Z","requestId":"r1","message":{"id":"m1","model":"claude-opus-4-6","usage":{"input_tokens":1000000,"output_tokens":0}}}"#
                + "\n")
        let publish = try BinaryRun.run(
            [
                "publish", "--store", root.file("store"), "--device-id", "laptop", "--source",
                "claude:\(root.file("claude"))", "--dry-run", "--now", "2026-11-30T12:00:00Z",
            ], environment: environment)
        #expect(publish.status == 0, "\(publish.errors)")
        #expect(
            publish.errors.contains("'\(root.file("config/aggctl"))/prices.json' is not a price table")
                && publish.errors.contains("no overrides used"))
        #expect(publish.output.contains(#""last30Days" : 5"#) || publish.output.contains(#""last30Days":5"#))
    }
}
