import Foundation
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
