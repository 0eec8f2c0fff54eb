import Aggregator
import Foundation
import Snapshots
import TestSupport
import Testing

struct TransitionDetectorTests {
    /// One account as the merge would give it, at `lastUpdated` with `used` percent of its session used.
    func account(
        _ lastUpdated: String, used: Double, resetsAt: String? = "2026-11-30T15:00:00Z", skewed: Bool = false,
        provider: String = "claude", email: String? = "you@example.com"
    ) -> MergedAccount {
        var merged = mergedOne(
            Records.entry(provider, email: email, at: lastUpdated, sessionUsed: used, resetsAt: resetsAt),
            at: lastUpdated)
        merged.clockSkew = skewed
        return merged
    }

    /// Runs accounts through the detector one after another; the kinds of every event fired.
    func run(_ steps: [MergedAccount], warnAt: [Int] = [], from start: AlertState = AlertState()) -> (
        [TransitionEvent], AlertState
    ) {
        var state = start
        var events: [TransitionEvent] = []
        for step in steps {
            let outcome = TransitionDetector.evaluate(previous: state, accounts: [step], warnAt: warnAt)
            events += outcome.events
            state = outcome.next
        }
        return (events, state)
    }

    @Test("depleted: remaining above 0.0001 and then at or below it")
    func depleted() {
        let (events, _) = run([account("2026-11-30T10:00:00Z", used: 40), account("2026-11-30T10:05:00Z", used: 100)])
        #expect(events.map(\.kind) == [.depleted])
        #expect(events.first?.title == "Claude session depleted")
        #expect(events.first?.body.hasPrefix("0% left. Will notify when it's available again.") == true)
        #expect(events.first?.at == Records.date("2026-11-30T10:05:00Z"))
    }

    @Test("restored: remaining at or below 0.0001 and then above it, at or after the reset")
    func restored() {
        let (events, _) = run([
            account("2026-11-30T14:00:00Z", used: 100),
            account("2026-11-30T15:00:00Z", used: 3, resetsAt: "2026-11-30T20:00:00Z"),
        ])
        #expect(events.map(\.kind) == [.depleted, .restored])
        #expect(events.last?.title == "Claude session restored")
        #expect(events.last?.body.hasPrefix("Session quota is available again.") == true)
    }

    @Test("first sight sets the state, fires depleted only if already depleted, never restored")
    func firstSight() {
        #expect(run([account("2026-11-30T10:00:00Z", used: 40)]).0.isEmpty)
        #expect(run([account("2026-11-30T10:00:00Z", used: 100)]).0.map(\.kind) == [.depleted])
        #expect(run([account("2026-11-30T10:00:00Z", used: 1)], warnAt: [25, 10]).0.isEmpty)
    }

    @Test("an early restore is held until a newer entry that is not depleted confirms it")
    func heldRestoreConfirmed() {
        let (events, state) = run([
            account("2026-11-30T14:00:00Z", used: 100, resetsAt: "2026-11-30T15:00:00Z"),
            account("2026-11-30T14:10:00Z", used: 0, resetsAt: "2026-11-30T15:00:00Z"),
        ])
        #expect(events.map(\.kind) == [.depleted])
        #expect(state.accounts.values.first?.heldRestore != nil)
        let confirmed = run([account("2026-11-30T14:12:00Z", used: 2, resetsAt: "2026-11-30T19:00:00Z")], from: state).0
        #expect(confirmed.map(\.kind) == [.restored])
    }

    @Test("a depleted entry between an early restore and its confirmation cancels it")
    func heldRestoreCancelled() {
        let (events, state) = run([
            account("2026-11-30T14:00:00Z", used: 100), account("2026-11-30T14:10:00Z", used: 0),
            account("2026-11-30T14:11:00Z", used: 100),
        ])
        #expect(events.map(\.kind) == [.depleted])
        #expect(state.accounts.values.first?.heldRestore == nil)
        // Still depleted: the next real restore (after the reset) fires, and only once.
        let later = run([account("2026-11-30T15:01:00Z", used: 1, resetsAt: "2026-11-30T20:00:00Z")], from: state).0
        #expect(later.map(\.kind) == [.restored])
    }

    @Test("an entry dated at or after the stored resetsAt restores at once")
    func restoreAtReset() {
        let (events, _) = run([
            account("2026-11-30T14:00:00Z", used: 100, resetsAt: "2026-11-30T15:00:00Z"),
            account("2026-11-30T15:00:00Z", used: 0, resetsAt: "2026-11-30T20:00:00Z"),
        ])
        #expect(events.map(\.kind) == [.depleted, .restored])
    }

    @Test("an entry marked clockSkew never moves the state")
    func clockSkewIgnored() {
        let (events, state) = run([
            account("2026-11-30T10:00:00Z", used: 40), account("2026-11-30T13:00:00Z", used: 100, skewed: true),
        ])
        #expect(events.isEmpty)
        #expect(state.accounts.values.first?.remainingPercent == 60)
        #expect(state.accounts.values.first?.lastUpdated == Records.date("2026-11-30T10:00:00Z"))
    }

    @Test("only an entry newer than the one behind the state moves it")
    func olderEntryIgnored() {
        let (events, state) = run([
            account("2026-11-30T10:05:00Z", used: 100), account("2026-11-30T10:00:00Z", used: 30),
            account("2026-11-30T10:05:00Z", used: 30),
        ])
        #expect(events.map(\.kind) == [.depleted])
        #expect(state.accounts.values.first?.remainingPercent == 0)
    }

    @Test("warnings fire once per downward crossing, the smallest threshold when several, and re-arm above")
    func warnings() {
        let (events, _) = run(
            [
                account("2026-11-30T10:00:00Z", used: 50), account("2026-11-30T10:01:00Z", used: 80),
                account("2026-11-30T10:02:00Z", used: 82), account("2026-11-30T10:03:00Z", used: 95),
                account("2026-11-30T10:04:00Z", used: 40), account("2026-11-30T10:05:00Z", used: 97),
                account("2026-11-30T10:06:00Z", used: 100),
            ], warnAt: [25, 10])
        #expect(events.map(\.kind) == [.warning, .warning, .warning, .depleted])
        #expect(events.map(\.threshold) == [25, 10, 10, nil])
        #expect(events[0].title == "Claude session quota low")
        #expect(events[0].body.hasPrefix("20% left."))
    }

    @Test("event ids are stable: the same transition gives the same id, another transition another")
    func stableIDs() {
        let steps = [account("2026-11-30T10:00:00Z", used: 40), account("2026-11-30T10:05:00Z", used: 100)]
        let first = run(steps).0
        let second = run(steps).0
        #expect(first.map(\.id) == second.map(\.id))
        #expect(first[0].id.hasPrefix("evt-") && first[0].id.count == 20)
        let other = run([account("2026-11-30T10:00:00Z", used: 40), account("2026-11-30T10:06:00Z", used: 100)]).0
        #expect(other[0].id != first[0].id)
    }

    @Test("after a lost state, a baseline run remembers without firing")
    func baseline() {
        let outcome = TransitionDetector.evaluate(
            previous: AlertState(), accounts: [account("2026-11-30T10:00:00Z", used: 100)], baselineOnly: true)
        #expect(outcome.events.isEmpty)
        #expect(outcome.next.accounts.count == 1)
    }

    @Test("accounts are tracked apart, and an unknown provider's name is capitalised")
    func perAccount() {
        var state = AlertState()
        let first = TransitionDetector.evaluate(
            previous: state,
            accounts: [
                account("2026-11-30T10:00:00Z", used: 40), account("2026-11-30T10:00:00Z", used: 40, provider: "zed"),
            ])
        state = first.next
        let second = TransitionDetector.evaluate(
            previous: state,
            accounts: [
                account("2026-11-30T10:01:00Z", used: 40), account("2026-11-30T10:01:00Z", used: 100, provider: "zed"),
            ])
        #expect(second.events.map(\.title) == ["Zed session depleted"])
    }

    @Test("a warning threshold added after the state was written is armed against the last known percent")
    func thresholdAddedLater() {
        let (_, seen) = run([account("2026-11-30T10:00:00Z", used: 60)])
        let (events, state) = run(
            [account("2026-11-30T10:05:00Z", used: 70), account("2026-11-30T10:10:00Z", used: 80)], warnAt: [25],
            from: seen)
        #expect(events.map(\.kind) == [.warning])
        #expect(events.first?.threshold == 25)
        let (again, _) = run([account("2026-11-30T10:15:00Z", used: 85)], warnAt: [25], from: state)
        #expect(again.isEmpty)
        // A threshold added below the current level waits to be crossed; one already crossed stays quiet.
        let (crossed, _) = run([account("2026-11-30T10:20:00Z", used: 90)], warnAt: [25, 5], from: state)
        #expect(crossed.isEmpty)
    }

    @Test("an account whose figures come from an older entry beside a newer error moves nothing new")
    func errorOnlyEntryMovesNothing() {
        let figures = Records.snapshot(
            "laptop", generatedAt: "2026-11-30T10:00:00Z", [Records.entry(at: "2026-11-30T10:00:00Z", sessionUsed: 40)])
        let error = Records.snapshot(
            "desktop", generatedAt: "2026-11-30T10:30:00Z",
            [Records.entry(at: "2026-11-30T10:30:00Z", sessionUsed: nil, error: "signed out")])
        let merged = Merger.merge(
            StoreContents(records: [Records.stored(figures), Records.stored(error)]),
            options: MergeOptions(now: Records.date("2026-11-30T10:31:00Z"))
        ).accounts[0]
        let (_, state) = run([account("2026-11-30T10:00:00Z", used: 40)])
        let outcome = TransitionDetector.evaluate(previous: state, accounts: [merged])
        #expect(outcome.events.isEmpty)
        #expect(outcome.next == state)
    }

    @Test("accounts gone from the store are forgotten 30 days after they went, whatever their figures' age")
    func forgetting() {
        var state = AlertState()
        let went = Records.date("2026-12-01T12:00:00Z")
        for (key, last) in [("old", "2026-10-01T11:00:00Z"), ("here", "2026-01-01T00:00:00Z")] {
            state.accounts[key] = AccountAlertState(
                remainingPercent: 0, lastUpdated: Records.date(last), resetsAt: nil)
        }
        // One run that could not read "old": figures two months old, but absent for no time at all.
        state.forget(accountsNotIn: ["here"], now: went)
        #expect(state.accounts.keys.sorted() == ["here", "old"])
        #expect(state.accounts["old"]?.absentSince == went)
        // Back the next run: the mark goes, and a later absence counts afresh.
        state.forget(accountsNotIn: ["here", "old"], now: went.addingTimeInterval(60))
        #expect(state.accounts["old"]?.absentSince == nil)
        state.forget(accountsNotIn: ["here"], now: went.addingTimeInterval(120))
        state.forget(accountsNotIn: ["here"], now: went.addingTimeInterval(120 + 29 * 86_400))
        #expect(state.accounts.keys.sorted() == ["here", "old"])
        state.forget(accountsNotIn: ["here"], now: went.addingTimeInterval(180 + 30 * 86_400))
        #expect(state.accounts.keys.sorted() == ["here"])
        #expect(state.accounts["here"]?.absentSince == nil)
    }
}
