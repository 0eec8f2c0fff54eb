import Aggregator
import Foundation
import Snapshots
import TestSupport
import Testing

/// docs/alerts.md, "Back at the reset": a window used up when its reset comes is available again by the
/// provider's own word, with no newer figures (the person stopped working when it ran out).
struct ResetRestoreTests {
    /// The account as a check at `now` merges it: one record read at `at`.
    func seen(
        at: String, now: String, sessionUsed: Double, sessionReset: String = "2026-11-30T15:00:00Z",
        weeklyUsed: Double? = nil, weeklyReset: String = "2026-12-03T09:00:00Z"
    ) -> MergedAccount {
        var entry = Records.entry(email: "you@example.com", at: at, sessionUsed: sessionUsed, resetsAt: sessionReset)
        if let weeklyUsed {
            entry.weekly = UsageWindow(
                usedPercent: weeklyUsed, windowMinutes: 10_080, resetsAt: Records.date(weeklyReset))
        }
        return mergedOne(entry, at: at, now: now)
    }

    func run(_ steps: [MergedAccount]) -> [TransitionEvent] {
        var state = AlertState()
        var events: [TransitionEvent] = []
        for step in steps {
            let outcome = TransitionDetector.evaluate(previous: state, accounts: [step])
            events += outcome.events
            state = outcome.next
        }
        return events
    }

    @Test("used up at 12:10, no newer figures: restored by the first check at or after the 15:00 reset, once")
    func restoredAtTheReset() {
        let events = run([
            seen(at: "2026-11-30T12:00:00Z", now: "2026-11-30T12:00:30Z", sessionUsed: 40),
            seen(at: "2026-11-30T12:10:00Z", now: "2026-11-30T12:10:30Z", sessionUsed: 100),
            seen(at: "2026-11-30T12:10:00Z", now: "2026-11-30T14:59:00Z", sessionUsed: 100),
            seen(at: "2026-11-30T12:10:00Z", now: "2026-11-30T15:01:00Z", sessionUsed: 100),
            seen(at: "2026-11-30T12:10:00Z", now: "2026-11-30T15:30:00Z", sessionUsed: 100),
        ])
        #expect(events.map(\.kind) == [.depleted, .restored])
        let restored = events.last
        #expect(restored?.title == "Claude session restored")
        #expect(restored?.body.hasPrefix("Session quota is available again. It reset at 2026-11-30 15:00 UTC.") == true)
        #expect(
            restored?.at == Records.date("2026-11-30T15:00:00Z"), "dated at the reset: every machine makes it alike")
    }

    @Test("figures after the reset that show it used up again deplete it again; a window not used up fires nothing")
    func usedUpAgain() {
        let events = run([
            seen(at: "2026-11-30T12:10:00Z", now: "2026-11-30T12:10:30Z", sessionUsed: 100),
            seen(at: "2026-11-30T12:10:00Z", now: "2026-11-30T15:01:00Z", sessionUsed: 100),
            seen(
                at: "2026-11-30T16:00:00Z", now: "2026-11-30T16:00:30Z", sessionUsed: 100,
                sessionReset: "2026-11-30T20:00:00Z"),
        ])
        #expect(events.map(\.kind) == [.depleted, .restored, .depleted])
        let quiet = run([
            seen(at: "2026-11-30T12:10:00Z", now: "2026-11-30T12:10:30Z", sessionUsed: 60),
            seen(at: "2026-11-30T12:10:00Z", now: "2026-11-30T15:01:00Z", sessionUsed: 60),
        ])
        #expect(quiet.isEmpty)
    }

    @Test("the session's reset while the week is used up restores nothing; the week's reset says both are back")
    func heldWhileTheWeekBlocks() {
        // Both used up at 12:10 and never read again; the session resets at 15:00, the week at 18:00.
        let bothUsedUp = { (now: String) in
            seen(
                at: "2026-11-30T12:10:00Z", now: now, sessionUsed: 100, weeklyUsed: 100,
                weeklyReset: "2026-11-30T18:00:00Z")
        }
        let events = run(
            ["2026-11-30T12:10:30Z", "2026-11-30T15:01:00Z", "2026-11-30T18:01:00Z", "2026-11-30T18:30:00Z"].map(
                bothUsedUp))
        #expect(events.map(\.kind) == [.depleted, .depleted, .restored], "\(events.map(\.title))")
        #expect(events.last?.title == "Claude weekly quota restored")
        #expect(events.last?.body.hasPrefix("Session and weekly quota are available again.") == true)
    }
}
