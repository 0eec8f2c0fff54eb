import Portable
import Snapshots

/// Edge-triggered detection of windows running out and coming back (the alert rules), for every window
/// of an account: the session, the weekly window and each limit.
///
/// Pure: the previous state and the merged accounts give the events and the next state; persisting the
/// state and delivering the events are separate steps.
public enum TransitionDetector {
    /// The events the merged accounts cause, and the state to remember.
    ///
    /// - Parameters:
    ///   - warnAt: remaining-percent thresholds for low-quota warnings (`--warn-at 25,10`), for the
    ///     session, the weekly window and binding limits.
    ///   - baselineOnly: remember the accounts as they are without firing anything, after the state was
    ///     lost (a corrupt file): a lost state must never re-fire old events.
    ///   - paceAt: also fire `pace` events, judging pace at this moment (`--warn-pace`).
    ///   - zone: the zone times in events' texts are written in (the reader's, shown).
    public static func evaluate(
        previous: AlertState, accounts: [MergedAccount], warnAt: [Int] = [], baselineOnly: Bool = false,
        paceAt: Date? = nil, zone: ZoneInfo = .utc
    ) -> (events: [TransitionEvent], next: AlertState) {
        var next = previous
        var events: [TransitionEvent] = []
        if let now = paceAt {
            events += pace(accounts, now: now, state: &next, baselineOnly: baselineOnly, zone: zone)
        }
        let thresholds = Array(Set(warnAt)).sorted()
        // Skewed figures never move the state: a wrong clock must not fire or swallow an event.
        for account in accounts where !account.clockSkew {
            let fired = WindowTransitions(account: account, thresholds: thresholds, zone: zone).apply(
                previous: previous, to: &next)
            if !baselineOnly { events += fired }
        }
        return (events, next)
    }

    /// Where each watched window of `account` keeps its state: the session under the account's key (as
    /// version 1 kept it), the weekly window under `<key>|weekly`, a limit under `<key>|limit:<id>`. A
    /// limit id is `[a-z0-9-]`, so no limit's slot can be a window's, whatever a record names it.
    public static func slots(of account: MergedAccount) -> [String] {
        WatchedWindow.all(of: account).map(\.slot)
    }

    /// A `pace` event for each window with a length and a reset that will run out before its reset at the
    /// pace so far (at least 3 % of it elapsed), once per window and reset. A window already used up gets
    /// none: it has run out, which its `depleted` event says; nor does a due one.
    static func pace(
        _ accounts: [MergedAccount], now: Date, state: inout AlertState, baselineOnly: Bool, zone: ZoneInfo = .utc
    ) -> [TransitionEvent] {
        var events: [TransitionEvent] = []
        for account in accounts where !account.clockSkew {
            for watched in WatchedWindow.all(of: account) {
                let window = watched.window
                guard !window.due, let resetsAt = window.resetsAt, let pace = window.pace(at: now),
                    !pace.lastsUntilReset, window.remainingPercent > WindowLevel.depletedThreshold
                else { continue }
                // The session's pace slot is `<key>|session` (its alert slot is the bare key).
                let slot = if case .session = watched.kind { watched.slot + "|session" } else { watched.slot }
                let earlier = state.paceAlerted[slot] ?? state.paceAlerted["\(account.key.description)|\(watched.name)"]
                if let fired = earlier, SamplingRule.sameReset(fired, resetsAt) { continue }
                state.paceAlerted[slot] = resetsAt
                guard !baselineOnly else { continue }
                events.append(
                    TransitionEvent(
                        kind: .pace, key: account.key, providerID: account.providerID,
                        accountEmail: account.accountEmail, remainingPercent: window.remainingPercent,
                        resetsAt: resetsAt, at: account.lastUpdated, window: watched.kind,
                        etaSeconds: pace.etaSeconds, zone: zone))
            }
        }
        return events
    }
}

/// One window an account's alerts follow.
struct WatchedWindow {
    var kind: TransitionEvent.Window
    var window: WindowStatus
    /// Whether reaching it stops every use of the account: the session, the weekly window, a binding limit.
    var binding: Bool
    var slot: String

    var name: String { kind.name }

    /// A limit's slot. Until 2026-12 a limit's slot was `<key>|<id>`, which a limit named `weekly` shared
    /// with the weekly window; `WindowTransitions` still reads a state kept under the old slot.
    static func limitSlot(_ key: String, _ id: String) -> String { key + "|limit:" + id }

    static func all(of account: MergedAccount) -> [WatchedWindow] {
        let key = account.key.description
        var windows: [WatchedWindow] = []
        if let session = account.session {
            windows.append(WatchedWindow(kind: .session, window: session, binding: true, slot: key))
        }
        if let weekly = account.weekly {
            windows.append(WatchedWindow(kind: .weekly, window: weekly, binding: true, slot: key + "|weekly"))
        }
        for limit in account.limits ?? [] {
            windows.append(
                WatchedWindow(
                    kind: .limit(id: limit.id, label: limit.label), window: limit.window, binding: limit.binding,
                    slot: Self.limitSlot(key, limit.id)))
        }
        return windows
    }
}
