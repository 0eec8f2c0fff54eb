import Aggregator
import Foundation
import Snapshots
import TestSupport
import Testing

/// `check --warn-pace`: a window that will run out before its reset is told once per window and reset.
struct PaceAlertTests {
    /// The session (5 h, resetting at `resetsAt`) at `used` percent, as the merge gives it at `now`.
    func account(_ now: String, used: Double, resetsAt: String = "2026-11-30T15:00:00Z", skewed: Bool = false)
        -> MergedAccount
    {
        var merged = mergedOne(Records.entry(at: now, sessionUsed: used, resetsAt: resetsAt), at: now)
        merged.clockSkew = skewed
        return merged
    }

    func run(_ steps: [(String, MergedAccount)], from start: AlertState = AlertState(), baselineOnly: Bool = false)
        -> ([TransitionEvent], AlertState)
    {
        var state = start
        var events: [TransitionEvent] = []
        for (now, account) in steps {
            let outcome = TransitionDetector.evaluate(
                previous: state, accounts: [account], baselineOnly: baselineOnly, paceAt: Records.date(now))
            events += outcome.events
            state = outcome.next
        }
        return (events, state)
    }

    @Test("fires once when a window will run out before its reset, with the estimated time, and not again")
    func firesOnce() throws {
        // Window 10:00-15:00. At 11:00 (20 % elapsed) 60 % used: 60 % an hour, runs out at 11:40.
        let (events, _) = run([
            ("2026-11-30T10:30:00Z", account("2026-11-30T10:30:00Z", used: 5)),
            ("2026-11-30T11:00:00Z", account("2026-11-30T11:00:00Z", used: 60)),
            ("2026-11-30T11:10:00Z", account("2026-11-30T11:10:00Z", used: 70)),
            ("2026-11-30T11:20:00Z", account("2026-11-30T11:20:00Z", used: 80)),
        ])
        let event = try #require(events.first)
        #expect(events.map(\.kind) == [.pace])
        #expect(event.title == "Claude session will run out before reset")
        #expect(
            event.body.hasPrefix(
                "Runs out in about 40m at this pace, before its reset at 2026-11-30 15:00 UTC. 40% left."))
        #expect(event.window == "session")
    }

    @Test("the next reset arms it again; a window that lasts fires nothing")
    func reArmedByReset() {
        let (events, _) = run([
            ("2026-11-30T11:00:00Z", account("2026-11-30T11:00:00Z", used: 60)),
            ("2026-11-30T12:00:00Z", account("2026-11-30T12:00:00Z", used: 30)),
            ("2026-11-30T16:00:00Z", account("2026-11-30T16:00:00Z", used: 20, resetsAt: "2026-11-30T20:00:00Z")),
            ("2026-11-30T16:30:00Z", account("2026-11-30T16:30:00Z", used: 90, resetsAt: "2026-11-30T20:00:00Z")),
        ])
        #expect(events.map(\.kind) == [.pace, .pace])
        #expect(Set(events.map(\.id)).count == 2)
    }

    @Test("nothing before 3 % of the window, nothing from a skewed clock, nothing when only remembering")
    func guards() {
        // Already used up: the depleted event tells, not a forecast.
        let spent = run([("2026-11-30T11:00:00Z", account("2026-11-30T11:00:00Z", used: 100))])
        #expect(spent.0.map(\.kind) == [.depleted])
        let early = run([("2026-11-30T10:05:00Z", account("2026-11-30T10:05:00Z", used: 50))])
        #expect(early.0.isEmpty)
        let skewed = run([("2026-11-30T11:00:00Z", account("2026-11-30T11:00:00Z", used: 60, skewed: true))])
        #expect(skewed.0.isEmpty)
        let baseline = run([("2026-11-30T11:00:00Z", account("2026-11-30T11:00:00Z", used: 60))], baselineOnly: true)
        #expect(baseline.0.isEmpty)
        // Remembered as told: the state that was lost is not told again.
        let after = run([("2026-11-30T11:10:00Z", account("2026-11-30T11:10:00Z", used: 70))], from: baseline.1)
        #expect(after.0.isEmpty)
    }

    @Test("an account without a session window (a weekly-only plan) is watched by its weekly window")
    func weeklyOnlyAccount() {
        func weeklyOnly(_ at: String, used: Double) -> MergedAccount {
            mergedOne(Records.entry("codex", at: at, sessionUsed: nil, weeklyUsed: used), device: "box", at: at)
        }
        var state = AlertState()
        var events: [TransitionEvent] = []
        for (at, used) in [("2026-11-30T10:00:00Z", 50.0), ("2026-11-30T11:00:00Z", 100), ("2026-12-01T11:00:00Z", 2)] {
            let outcome = TransitionDetector.evaluate(previous: state, accounts: [weeklyOnly(at, used: used)])
            events += outcome.events
            state = outcome.next
        }
        #expect(events.map(\.title) == ["Codex weekly quota depleted", "Codex weekly quota restored"])
        #expect(events.map(\.window) == ["weekly", "weekly"])
        #expect(events.last?.body.hasPrefix("Weekly quota is available again.") == true)
        // Gaining a session window starts the session's state afresh: no restore or depletion from the week's.
        let session = mergedOne(
            Records.entry("codex", at: "2026-12-01T12:00:00Z", sessionUsed: 100), device: "box",
            at: "2026-12-01T12:00:00Z")
        let switched = TransitionDetector.evaluate(previous: state, accounts: [session])
        #expect(switched.events.map(\.title) == ["Codex session depleted"])
        #expect(switched.next.accounts[session.key.description]?.window == nil)
        #expect(switched.next.accounts[session.key.description + "|weekly"]?.window == "weekly")
    }

    @Test(
        "a month an older publisher wrote as 'weekly' (Copilot's premium requests) is read as a binding monthly limit")
    func monthlyWindow() throws {
        var entry = Records.entry("copilot", at: "2026-11-30T10:00:00Z", sessionUsed: nil)
        entry.weekly = UsageWindow(
            usedPercent: 100, windowMinutes: 43_200, resetsAt: Records.date("2026-12-01T00:00:00Z"))
        let record = Records.snapshot("box", generatedAt: "2026-11-30T10:00:00Z", [entry])
        let decoded = try RecordCodec.decode(try RecordCodec.encode(record), fileName: "box.json").snapshot
        #expect(decoded.providers[0].weekly == nil)
        #expect(decoded.providers[0].limits?.map(\.id) == ["quota-monthly"])
        let account = Merger.merge(
            StoreContents(records: [Records.stored(decoded)]),
            options: MergeOptions(now: Records.date("2026-11-30T10:00:00Z"))
        ).accounts[0]
        #expect(account.blocked)
        let outcome = TransitionDetector.evaluate(previous: AlertState(), accounts: [account])
        #expect(outcome.events.map(\.title) == ["Copilot Monthly quota limit reached"])
        #expect(outcome.events.map(\.window) == ["quota-monthly"])
    }
}
