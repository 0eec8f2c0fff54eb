import Portable

/// Edge-triggered detection of session windows running out and coming back (the alert rules).
///
/// Pure: the previous state and the merged accounts give the events and the next state; persisting the
/// state and delivering the events are separate steps. The session window is watched; an account without
/// one (a weekly-only plan) has its weekly window watched instead, and its events say so.
public enum TransitionDetector {
    /// The events the merged accounts cause, and the state to remember.
    ///
    /// - Parameters:
    ///   - warnAt: remaining-percent thresholds for low-quota warnings (`--warn-at 25,10`).
    ///   - baselineOnly: remember the accounts as they are without firing anything, after the state was
    ///     lost (a corrupt file): a lost state must never re-fire old events.
    ///   - paceAt: also fire `pace` events, judging pace at this moment (`--warn-pace`).
    public static func evaluate(
        previous: AlertState, accounts: [MergedAccount], warnAt: [Int] = [], baselineOnly: Bool = false,
        paceAt: Date? = nil
    ) -> (events: [TransitionEvent], next: AlertState) {
        var next = previous
        var events: [TransitionEvent] = []
        if let now = paceAt {
            events += pace(accounts, now: now, state: &next, baselineOnly: baselineOnly)
        }
        let thresholds = Array(Set(warnAt)).sorted()
        for account in accounts {
            // Skewed figures never move the state: a wrong clock must not fire or swallow an event.
            guard let session = account.session ?? account.weekly, !account.clockSkew else { continue }
            let watched: String? = account.session == nil ? longWindowName(session) : nil
            let key = account.key.description
            let remaining = session.remainingPercent
            let isDepleted = remaining <= WindowLevel.depletedThreshold
            func event(_ kind: TransitionEvent.Kind, threshold: Int? = nil) -> TransitionEvent {
                TransitionEvent(
                    kind: kind, key: account.key, providerID: account.providerID, accountEmail: account.accountEmail,
                    remainingPercent: remaining, resetsAt: session.resetsAt, at: account.lastUpdated,
                    threshold: threshold, window: watched)
            }

            // A state of the other window (the account gained or lost its session window) is no state for
            // this one: it starts afresh, as on first sight.
            guard var state = previous.accounts[key], state.window == watched else {
                // First sight sets the state. A machine that starts watching during an outage is told
                // once (depleted); never "restored", and no warning: nothing was crossed while watched.
                next.accounts[key] = AccountAlertState(
                    remainingPercent: remaining, lastUpdated: account.lastUpdated, resetsAt: session.resetsAt,
                    armedWarnings: thresholds.filter { remaining > Double($0) }, window: watched)
                if isDepleted && !baselineOnly { events.append(event(.depleted)) }
                continue
            }
            // Only figures newer than those behind the state move it: when the newest device's record
            // disappears and an older one wins again, that is not a transition.
            guard account.lastUpdated > state.lastUpdated else { continue }
            let wasDepleted = state.remainingPercent <= WindowLevel.depletedThreshold
            var fired: TransitionEvent?

            if state.heldRestore != nil {
                // A held restore is confirmed by a newer entry that is not depleted, cancelled by one that is.
                state.heldRestore = nil
                if !isDepleted { fired = event(.restored) }
            } else if wasDepleted && !isDepleted {
                if let resetsAt = state.resetsAt, account.lastUpdated < resetsAt {
                    // Reported before the window's reset: providers briefly show 0% used while a window is
                    // still exhausted. Held until a newer entry confirms it.
                    state.heldRestore = HeldRestore(
                        remainingPercent: remaining, lastUpdated: account.lastUpdated, resetsAt: session.resetsAt)
                    state.lastUpdated = account.lastUpdated
                    next.accounts[key] = state
                    continue
                }
                fired = event(.restored)
            } else if !wasDepleted && isDepleted {
                fired = event(.depleted)
            }

            // Warnings: fired once when the remaining percent crosses an armed threshold downward (the
            // smallest one when several are crossed at once), armed again when it rises above it. A
            // depleted window gets its depleted event instead. Armed means "the last known remaining
            // percent is above it", judged with today's thresholds: one added to `--warn-at` after the
            // state was written is armed like the others, not left out until the window recovers.
            let armed = thresholds.filter { state.remainingPercent > Double($0) }
            let crossed = armed.filter { remaining <= Double($0) }
            if let smallest = crossed.min(), fired == nil, !isDepleted, !baselineOnly {
                fired = event(.warning, threshold: smallest)
            }
            state.armedWarnings = thresholds.filter { remaining > Double($0) }

            state.remainingPercent = remaining
            state.lastUpdated = account.lastUpdated
            state.resetsAt = session.resetsAt
            next.accounts[key] = state
            if let fired, !baselineOnly { events.append(fired) }
        }
        return (events, next)
    }

    /// What the long window is called in events: `weekly`, or `monthly` for one longer than two weeks
    /// (GitHub Copilot's premium requests).
    static func longWindowName(_ window: WindowStatus) -> String {
        (window.windowMinutes ?? 10_080) > 14 * 1440 ? "monthly" : "weekly"
    }

    /// A `pace` event for each session or weekly window that will run out before its reset at the pace so
    /// far (at least 3 % of it elapsed), once per window and reset. A window already used up gets none:
    /// it has run out, which its `depleted` event says.
    static func pace(
        _ accounts: [MergedAccount], now: Date, state: inout AlertState, baselineOnly: Bool
    ) -> [TransitionEvent] {
        var events: [TransitionEvent] = []
        for account in accounts where !account.clockSkew {
            for (name, window) in [
                ("session", account.session), (account.weekly.map(longWindowName) ?? "weekly", account.weekly),
            ] {
                guard let window, let resetsAt = window.resetsAt, let pace = window.pace(at: now),
                    !pace.lastsUntilReset, window.remainingPercent > WindowLevel.depletedThreshold
                else { continue }
                let slot = "\(account.key.description)|\(name)"
                if let fired = state.paceAlerted[slot], SamplingRule.sameReset(fired, resetsAt) { continue }
                state.paceAlerted[slot] = resetsAt
                guard !baselineOnly else { continue }
                events.append(
                    TransitionEvent(
                        kind: .pace, key: account.key, providerID: account.providerID,
                        accountEmail: account.accountEmail, remainingPercent: window.remainingPercent,
                        resetsAt: resetsAt, at: account.lastUpdated, window: name, etaSeconds: pace.etaSeconds))
            }
        }
        return events
    }
}
