import Foundation
import Snapshots
import TestSupport
import Testing

struct UsageInputTests {
    let now = Records.date("2026-11-30T12:00:00Z")

    private func providers(_ text: String) throws -> [ProviderUsage] {
        try UsageInput.providers(from: Data(text.utf8), now: now)
    }

    @Test("aggctl's own document and a bare array of entries are both accepted")
    func ownShapes() throws {
        let entry = #"{"providerID": "claude", "lastUpdated": "2026-11-30T11:00:00Z", "session": {"usedPercent": 5}}"#
        #expect(try providers("{\"providers\": [\(entry)]}").map(\.providerID) == ["claude"])
        #expect(try providers("[\(entry)]").first?.session?.usedPercent == 5)
        #expect(try providers("[]").isEmpty)
    }

    @Test("codexbar usage --format json: primary is the session, secondary the weekly window")
    func codexBarArray() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Repository.path("Examples/usage/codexbar-usage.json")))
        let entries = try UsageInput.providers(from: data, now: now)
        #expect(entries.map(\.providerID) == ["codex", "claude", "cursor"])
        let codex = entries[0]
        #expect(codex.accountEmail == "you@example.com")
        #expect(codex.plan == "plus")
        #expect(codex.lastUpdated == Records.date("2026-11-30T11:58:22Z"))
        #expect(
            codex.session
                == UsageWindow(usedPercent: 28, windowMinutes: 300, resetsAt: Records.date("2026-11-30T15:15:00Z")))
        #expect(codex.weekly?.usedPercent == 59)
        let claude = entries[1]
        #expect(claude.plan == "Max 20x")
        #expect(claude.session?.usedPercent == 100)
        #expect(
            claude.limits == [
                Limit(
                    id: "model-weekly", label: "Model", windowMinutes: 10080, usedPercent: 12,
                    resetsAt: Records.date("2026-12-03T09:00:00Z"), binding: false)
            ])
        let cursor = entries[2]
        #expect(cursor.error == "selected source requires web support")
        #expect(cursor.session == nil)
        #expect(cursor.lastUpdated == now)
    }

    // Shapes of CodexBar's JSON in 2026 (steipete/CodexBar, Tests/CodexBarTests/CLISnapshotTests.swift, and
    // the consumers of `codexbar usage --format json` that read `extraRateWindows`), synthetic.
    @Test(
        "CodexBar's extraRateWindows are limits by their titles, and windows are placed by length (Kimi's week is primary)"
    )
    func codexBarLimitsAndLengths() throws {
        let entries = try providers(
            """
            [{"provider": "claude", "usage": {"primary": {"usedPercent": 21, "windowMinutes": 300},
               "secondary": {"usedPercent": 71, "windowMinutes": 10080},
               "extraRateWindows": [{"id": "claude-weekly-scoped-fable", "title": "Fable only",
                                     "window": {"usedPercent": 93, "windowMinutes": 10080, "resetsAt": "2026-12-03T00:00:00Z"}},
                                    {"id": "codex-spark", "title": "Codex Spark", "window": {"usedPercent": 30, "windowMinutes": 300}}],
               "updatedAt": "2026-11-30T10:00:00Z"}},
             {"provider": "kimi", "usage": {"primary": {"usedPercent": 40, "windowMinutes": 10080},
               "secondary": {"usedPercent": 10, "windowMinutes": 300}, "updatedAt": "2026-11-30T10:00:00Z"}}]
            """)
        let claude = entries[0]
        #expect(claude.session?.usedPercent == 21 && claude.weekly?.usedPercent == 71)
        #expect(claude.limits?.map(\.id) == ["fable-only-weekly", "spark-session"])
        #expect(claude.limits?.map(\.label) == ["Fable only", "Spark"])
        #expect(claude.limits?.first?.usedPercent == 93 && claude.limits?.first?.binding == false)
        let kimi = entries[1]
        #expect(kimi.weekly?.usedPercent == 40, "the week, though CodexBar calls it primary")
        #expect(kimi.session?.usedPercent == 10)
    }

    @Test("a single CodexBar payload is accepted too")
    func codexBarSingle() throws {
        let entries = try providers(
            #"{"provider": "codex", "usage": {"primary": {"usedPercent": 3}, "updatedAt": "2026-11-30T10:00:00Z"}}"#)
        #expect(entries.map(\.providerID) == ["codex"])
        #expect(entries[0].session?.usedPercent == 3)
    }

    @Test("a bad entry in input is an error naming the entry and field")
    func strictInput() {
        #expect(throws: RecordDecodingError(reason: "missing 'lastUpdated' at 'providers[1]'")) {
            try providers(
                #"{"providers": [{"providerID": "a", "lastUpdated": "2026-11-30T11:00:00Z"}, {"providerID": "b"}]}"#)
        }
        #expect(
            throws: RecordDecodingError(
                reason: "providers[0]: 'Cl aude': a provider id has only lowercase letters, digits and '-'")
        ) {
            try providers(#"[{"providerID": "Cl aude", "lastUpdated": "2026-11-30T11:00:00Z"}]"#)
        }
        #expect(throws: RecordDecodingError(reason: "missing 'providers'")) { try providers(#"{"something": 1}"#) }
        #expect(throws: RecordDecodingError(reason: "not valid JSON")) { try providers("{") }
    }

    @Test("a value every reader would ignore is refused, naming its field, instead of written into the record")
    func valuesOutOfRange() {
        let at = #""lastUpdated": "2026-11-30T11:00:00Z""#
        for (entry, reason) in [
            (
                #"{"providerID": "claude", \#(at), "weekly": {"usedPercent": 61, "resetsAt": "4052-12-03T09:00:00Z"}}"#,
                "providers[0].weekly.resetsAt 4052-12-03T09:00:00Z is out of range (2000...2200)"
            ),
            (
                #"{"providerID": "claude", \#(at), "session": {"usedPercent": 5, "windowMinutes": 0}}"#,
                "providers[0].session.windowMinutes 0 is not a positive length"
            ),
            (#"{"providerID": "claude", \#(at), "tokens": {"today": -3}}"#, "providers[0].tokens.today -3 is negative"),
            (
                #"{"providerID": "claude", "lastUpdated": "1970-01-02T00:00:00Z"}"#,
                "providers[0].lastUpdated 1970-01-02T00:00:00Z is out of range (2000...2200)"
            ),
        ] {
            #expect(throws: RecordDecodingError(reason: reason)) { try providers("[" + entry + "]") }
        }
        // In range, all of it reads; a used percent past 100 too, as the provider reported it (readers clamp
        // what remains).
        #expect(
            (try? providers(
                #"[{"providerID": "claude", \#(at), "session": {"usedPercent": 100, "windowMinutes": 300}}]"#))?
                .count == 1)
        #expect(
            (try? providers(#"[{"providerID": "claude", \#(at), "session": {"usedPercent": 100.4}}]"#))?.first?
                .session?.usedPercent == 100.4)
    }
}
