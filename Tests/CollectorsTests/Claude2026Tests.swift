import Foundation
import Serialization
import Snapshots
import TestSupport
import Testing

@testable import Collectors

/// Claude Code's limit messages through 2026 (`Fixtures/claude-2026/<case>/`, synthetic), each with its
/// expected result in `expected.json`.
struct Claude2026Tests {
    static let root = Repository.path("Tests/CollectorsTests/Fixtures/claude-2026")
    static let cases = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).sorted()

    func check(_ window: UsageWindow?, against expected: Any?, _ label: String) {
        guard let expected = expected as? [String: Any] else {
            #expect(window == nil, "\(label) should be absent")
            return
        }
        #expect(window?.usedPercent == expected["usedPercent"] as? Double, "\(label) used percent")
        #expect(window?.resetsAt == (expected["resetsAt"] as? String).flatMap(RFC3339.parse), "\(label) reset")
    }

    @Test("every wording gives its window and reset, and limit messages are never priced", arguments: cases)
    func wording(_ name: String) throws {
        let data = try #require(FileManager.default.contents(atPath: "\(Self.root)/\(name)/expected.json"))
        let expected = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let entry = try ClaudeCollector(folders: ["\(Self.root)/\(name)"]).collect(
            now: Records.date("2026-11-30T12:00:00Z"))
        check(entry.session, against: expected["session"], "\(name): session")
        check(entry.weekly, against: expected["weekly"], "\(name): weekly")
        #expect(entry.tokens?.today == expected["tokens"] as? Int, "\(name): tokens")
    }

    @Test("the limit line ccusage's adapter test reads: its reset, a limit hit; '|0' gives no time")
    func ccusageLimitLine() throws {
        // rust/crates/ccusage/src/main.rs at 5816e640, `extracts_usage_limit_reset_time_from_raw_line`:
        // the line as it asserts it (no `type`), its reset 2025-01-10T10:00:00.000Z; and `|0`, no reset.
        let line =
            #"{"timestamp":"2025-01-10T10:00:00.000Z","isApiErrorMessage":true,"message":{"content":[{"text":"Claude AI usage limit reached|1736503200 remaining"}],"usage":{"input_tokens":0,"output_tokens":0}}}"#
        let file = Array(line.utf8).withUnsafeBytes {
            ClaudeCollector.FileScan.read($0, keepingSince: .distantPast, reading: LogReading(zones: .utc))
        }
        #expect(file.limitResetsAt == Records.date("2025-01-10T10:00:00Z"))
        #expect(file.hits.map(\.resetsAt) == [Records.date("2025-01-10T10:00:00Z")])
        #expect(file.responses.isEmpty, "a limit message is never a response")
        let zero = line.replacing("|1736503200 remaining", with: "|0")
        let none = Array(zero.utf8).withUnsafeBytes {
            ClaudeCollector.FileScan.read($0, keepingSince: .distantPast, reading: LogReading(zones: .utc))
        }
        #expect(none.limitResetsAt == nil && none.hits.isEmpty)
    }

    @Test("each limit message is history: used up when written, until its reset; kept across runs")
    func limitMessagesAsHistory() throws {
        let folder = TemporaryDirectory("aggctl-claude-trail")
        // The session-limit case, and a response after its reset: the person went on working.
        let log = try String(
            contentsOfFile: "\(Self.root)/session-limit/projects/-home-dev-work/s1.jsonl", encoding: .utf8)
        let first = try #require(log.split(separator: "\n").first)
        let later = first.replacing("2026-11-30T10:59:00.000Z", with: "2026-11-30T15:30:00.000Z")
            .replacing("msg_a", with: "msg_c").replacing("req_a", with: "req_c")
        try folder.write("claude/projects/-home-dev-work/s1.jsonl", log + later + "\n")
        let now = Records.date("2026-11-30T16:00:00Z")
        for run in ["first", "from what was kept"] {
            let entry = try ClaudeCollector(folders: [folder.file("claude")]).collect(
                now: now, stateFolder: folder.file("state"), readerVersion: "test")
            #expect(entry.lastUpdated == Records.date("2026-11-30T15:30:00Z"), "\(run)")
            #expect(
                entry.sessionSamples == [
                    UsageSample(
                        at: Records.date("2026-11-30T11:00:00Z"), usedPercent: 100,
                        resetsAt: Records.date("2026-11-30T14:50:00Z"))
                ], "\(run)")
            #expect(entry.weeklySamples == nil, "\(run)")
        }
        // A message after the newest response is the entry's own window, not a sample from after it.
        let alone = try ClaudeCollector(folders: ["\(Self.root)/weekly-limit"]).collect(now: now)
        #expect(alone.weekly?.usedPercent == 100 && alone.weeklySamples == nil)
    }

    @Test("reset times in words: named zones, the next such time, the next such date, claude.ai's wording")
    func times() throws {
        let at = Records.date("2026-12-30T20:00:00Z")
        func time(_ text: String) -> Date? {
            LimitTimeText.time(in: text, after: ["resets ", "reset at "], messageAt: at, zones: .utc)
        }
        // A date already past this year is next year's.
        #expect(
            time("You've hit your limit · resets Jan 30, 11:30am (Asia/Calcutta)")
                == Records.date("2027-01-30T06:00:00Z"))
        // A time already past today is tomorrow's (21:50 in Saigon is 14:50 UTC, before 20:00).
        #expect(
            time("You've hit your session limit · resets 9:50pm (Asia/Saigon)") == Records.date("2026-12-31T14:50:00Z"))
        #expect(
            time("You've hit your limit for Claude messages. Limits will reset at 9:30 AM.")
                == Records.date("2026-12-31T09:30:00Z"))
        #expect(
            time("You've hit your weekly limit · resets Sep 15, 3am (Europe/Berlin)")
                == Records.date("2027-09-15T01:00:00Z"))
        #expect(time("resets 12am") == Records.date("2026-12-31T00:00:00Z"))
        #expect(time("resets 12pm (Not/A_Zone)") == nil)
        #expect(time("resets 13pm") == nil)
        #expect(time("resets Feb 30, 3am") == nil)
        #expect(time("no time here") == nil)
    }
}

/// Every wording of Claude's limit messages of 2026 (issue 35), each put on the window it names.
struct ClaudeLimitWordingTests {
    enum Placed: Equatable {
        case session(String?)
        case weekly(String)
        case model(String, String?)
        case spend(String)
    }

    static let at = "2026-12-30T20:00:00Z"
    static let cases: [(String, Placed)] = [
        ("You've hit your session limit · resets 3pm (America/Los_Angeles)", .session("2026-12-30T23:00:00Z")),
        (
            "You've hit your session limit · resets 3pm (America/Los_Angeles) · progress saved",
            .session("2026-12-30T23:00:00Z")
        ),
        // A date already past this year is next year's (EDT in November 2027 until the 7th).
        ("You've hit your limit · resets Nov 2, 9am (America/New_York)", .session("2027-11-02T13:00:00Z")),
        ("You've hit your weekly limit · resets Oct 9, 5pm (Europe/Berlin)", .weekly("2027-10-09T15:00:00Z")),
        ("You've hit your limit · resets Jul 27 at 4:30am", .session("2027-07-27T04:30:00Z")),
        // A Wednesday evening: the next Monday and Sunday at midnight.
        ("You've hit your weekly limit · resets Mon 12:00am", .weekly("2027-01-04T00:00:00Z")),
        ("You've hit your weekly limit · resets Sunday 12:00am", .weekly("2027-01-03T00:00:00Z")),
        ("You've hit your Opus limit · resets Jan 2, 5pm (Europe/Berlin)", .model("opus", "2027-01-02T16:00:00Z")),
        ("You've hit your Sonnet limit", .model("sonnet", nil)),
        ("You've hit your monthly spend limit", .spend("monthly spend limit reached")),
        (
            "You've hit your individual spend limit · contact your admin to increase it",
            .spend("individual spend limit reached")
        ),
        ("Claude AI usage limit reached|1798750800", .session("2026-12-31T21:00:00Z")),
        ("You've hit your limit for Claude messages. Limits will reset at 9:30 PM.", .session("2026-12-30T21:30:00Z")),
        // Understood as a limit, its time not: the session until the end of its 5-hour block.
        ("You've hit your limit · resets soon", .session(nil)),
    ]

    @Test("each wording on its window", arguments: cases)
    func placed(_ text: String, _ expected: Placed) throws {
        let folder = TemporaryDirectory("aggctl-wording")
        let quoted = String(decoding: try JSONEncoder().encode(text), as: UTF8.self)
        let line =
            #"{"type":"assistant","timestamp":"\#(Self.at)","isApiErrorMessage":true,"error":"rate_limit","requestId":"req_x","message":{"id":"msg_x","role":"assistant","model":"<synthetic>","content":[{"type":"text","text":\#(quoted)}],"usage":{"input_tokens":0,"output_tokens":0}}}"#
        // A response half an hour before: the 5-hour block it starts ends at midnight.
        let response =
            #"{"type":"assistant","timestamp":"2026-12-30T19:30:00Z","requestId":"req_r","message":{"id":"msg_r","role":"assistant","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":10,"output_tokens":1}}}"#
        try folder.write("projects/-home-dev/s.jsonl", response + "\n" + line + "\n")
        let entry = try ClaudeCollector(folders: [folder.path]).collect(now: Records.date("2026-12-30T20:01:00Z"))
        switch expected {
        case .session(let reset?):
            #expect(entry.session?.resetsAt == Records.date(reset), "\(text)")
            #expect(entry.weekly == nil && entry.modelWeekly == nil && entry.error == nil)
        case .session(nil):
            #expect(
                entry.session?.usedPercent == 100 && entry.session?.resetsAt == Records.date("2026-12-31T00:00:00Z"))
        case .weekly(let reset):
            #expect(entry.weekly?.resetsAt == Records.date(reset), "\(text)")
            #expect(entry.session == nil)
        case .model(let name, let reset):
            #expect(entry.modelWeekly?.map(\.name) == [name], "\(text)")
            #expect(entry.modelWeekly?.first?.window.resetsAt == reset.map(Records.date), "\(text)")
            #expect(entry.modelWeekly?.first?.window.usedPercent == 100)
            #expect(entry.session == nil, "a model's week is not the session")
        case .spend(let error):
            #expect(entry.error?.hasPrefix(error) == true, "\(text): \(entry.error ?? "no error")")
            #expect(entry.session == nil && entry.weekly == nil, "a spend limit leaves the windows alone")
        }
    }
}
