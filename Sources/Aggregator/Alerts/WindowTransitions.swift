import Portable

/// The transitions of one account's windows in one run, with the rule that joins them: a session restore
/// that would not let anyone work (the weekly window or a binding limit is used up) is held, and folded
/// into the blocking window's own restore when that comes.
struct WindowTransitions {
    let account: MergedAccount
    let thresholds: [Int]
    /// Where the texts' times are written.
    var zone: ZoneInfo = .utc

    /// The events of this run, with `next` updated; `previous` is the state before the run.
    func apply(previous: AlertState, to next: inout AlertState) -> [TransitionEvent] {
        let watched = WatchedWindow.all(of: account)
        var fired: [(window: WatchedWindow, event: TransitionEvent)] = []
        for window in watched {
            // Figures past their reset are not current: a due window neither depletes nor restores by them.
            // But a window used up when its reset came is available again by the provider's own word
            // (docs/alerts.md, "Back at the reset"): a person who stopped working brings no newer figures.
            if window.window.due {
                if let event = restoredAtReset(window, previous: previous, next: &next) {
                    fired.append((window, event))
                }
                continue
            }
            if let event = transition(of: window, previous: previous, next: &next) {
                fired.append((window, event))
            }
        }
        return joined(fired, watched: watched, previous: previous, next: &next)
    }

    /// The state a window's rules start from: its own slot, or (for the weekly window) the state a
    /// version-1 file kept for a weekly-only account under the account's key.
    private func state(of window: WatchedWindow, in state: AlertState) -> AccountAlertState? {
        if case .session = window.kind {
            let kept = state.accounts[window.slot]
            return kept?.window == nil ? kept : nil
        }
        if let kept = state.accounts[window.slot] { return kept }
        // A limit's state as releases before the `limit:` slot kept it (`<key>|<id>`), when it is that limit's.
        if case .limit(let id, _) = window.kind, let kept = state.accounts[account.key.description + "|" + id],
            kept.window == id
        {
            return kept
        }
        if case .weekly = window.kind, let kept = state.accounts[account.key.description],
            kept.window == "weekly" || kept.window == "monthly"
        {
            return kept
        }
        return nil
    }

    private func event(
        _ kind: TransitionEvent.Kind, _ window: WatchedWindow, threshold: Int? = nil
    ) -> TransitionEvent {
        TransitionEvent(
            kind: kind, key: account.key, providerID: account.providerID, accountEmail: account.accountEmail,
            remainingPercent: window.window.remainingPercent, resetsAt: window.window.resetsAt,
            at: account.lastUpdated, threshold: threshold, window: window.kind, zone: zone)
    }

    /// The restore of a window the state holds used up once its reset has passed (the window is due), at
    /// the reset: dated `resetsAt`, so every machine makes the same event. The state then holds the window
    /// as the provider's new one (all of it left), behind the same figures: newer ones that show it used up
    /// again deplete it again.
    private func restoredAtReset(
        _ window: WatchedWindow, previous: AlertState, next: inout AlertState
    ) -> TransitionEvent? {
        guard var state = self.state(of: window, in: previous), state.remainingPercent <= WindowLevel.depletedThreshold,
            let resetsAt = window.window.resetsAt, state.resetsAt.map({ $0 <= resetsAt }) ?? true
        else { return nil }
        state.window = { if case .session = window.kind { nil } else { window.name } }()
        state.remainingPercent = 100
        state.heldRestore = nil
        state.armedWarnings = window.binding ? thresholds : []
        next.accounts[window.slot] = state
        return TransitionEvent(
            kind: .restored, key: account.key, providerID: account.providerID, accountEmail: account.accountEmail,
            remainingPercent: 100, resetsAt: resetsAt, at: resetsAt, window: window.kind, atReset: true, zone: zone)
    }

    /// One window's transition (depleted, restored, warning) under the rules every window follows, with
    /// its state written to `next`.
    private func transition(
        of window: WatchedWindow, previous: AlertState, next: inout AlertState
    ) -> TransitionEvent? {
        let figures = window.window
        let remaining = figures.remainingPercent
        let isDepleted = remaining <= WindowLevel.depletedThreshold
        let warns = window.binding
        let stateWindow: String? = if case .session = window.kind { nil } else { window.name }
        // A version-1 weekly-only state moves to the weekly window's own slot.
        if case .weekly = window.kind, previous.accounts[window.slot] == nil,
            let old = previous.accounts[account.key.description], old.window != nil
        {
            next.accounts[account.key.description] = nil
        }
        guard var state = self.state(of: window, in: previous) else {
            // First sight sets the state. A machine that starts watching during an outage is told once
            // (depleted); never "restored", and no warning: nothing was crossed while watched.
            next.accounts[window.slot] = AccountAlertState(
                remainingPercent: remaining, lastUpdated: account.lastUpdated, resetsAt: figures.resetsAt,
                armedWarnings: warns ? thresholds.filter { remaining > Double($0) } : [], window: stateWindow)
            return isDepleted ? event(.depleted, window) : nil
        }
        state.window = stateWindow
        // Only figures newer than those behind the state move it: when the newest device's record
        // disappears and an older one wins again, that is not a transition.
        guard account.lastUpdated > state.lastUpdated else {
            next.accounts[window.slot] = state
            return nil
        }
        let wasDepleted = state.remainingPercent <= WindowLevel.depletedThreshold
        var fired: TransitionEvent?
        if state.heldRestore != nil {
            // A held restore is confirmed by a newer entry that is not depleted, cancelled by one that is.
            state.heldRestore = nil
            if !isDepleted { fired = event(.restored, window) }
        } else if wasDepleted && !isDepleted {
            // (Not for a session whose restore waits on another window: its own reset has passed.)
            if state.restoreHeldBy == nil, let resetsAt = state.resetsAt, account.lastUpdated < resetsAt {
                // Reported before the window's reset: providers briefly show 0% used while a window is
                // still exhausted. Held until a newer entry confirms it.
                state.heldRestore = HeldRestore(
                    remainingPercent: remaining, lastUpdated: account.lastUpdated, resetsAt: figures.resetsAt)
                state.lastUpdated = account.lastUpdated
                next.accounts[window.slot] = state
                return nil
            }
            fired = event(.restored, window)
        } else if !wasDepleted && isDepleted {
            fired = event(.depleted, window)
        }
        // Warnings: fired once when the remaining percent crosses an armed threshold downward (the smallest
        // one when several are crossed at once), armed again when it rises above it. A depleted window
        // gets its depleted event instead. Armed means "the last known remaining percent is above it",
        // judged with today's thresholds.
        if warns {
            let armed = thresholds.filter { state.remainingPercent > Double($0) }
            let crossed = armed.filter { remaining <= Double($0) }
            if let smallest = crossed.min(), fired == nil, !isDepleted {
                fired = event(.warning, window, threshold: smallest)
            }
            state.armedWarnings = thresholds.filter { remaining > Double($0) }
        }
        // A session restore held while another window blocked the account is dropped when the session
        // is used up again meanwhile.
        if isDepleted { state.restoreHeldBy = nil }
        state.remainingPercent = remaining
        state.lastUpdated = account.lastUpdated
        state.resetsAt = figures.resetsAt
        next.accounts[window.slot] = state
        return fired
    }

    /// The run's events after the rule that joins windows: a session restore while the weekly window or
    /// a binding limit is used up is held (its state stays depleted, naming the blocker), and when the
    /// blocker comes back with nothing else blocking, its restore says both are available again.
    private func joined(
        _ fired: [(window: WatchedWindow, event: TransitionEvent)], watched: [WatchedWindow], previous: AlertState,
        next: inout AlertState
    ) -> [TransitionEvent] {
        let blockers = watched.filter { window in
            if case .session = window.kind { return false }
            return window.binding && !window.window.due && window.window.level == .depleted
        }
        guard let session = watched.first(where: { if case .session = $0.kind { true } else { false } }) else {
            return fired.map(\.event)
        }
        let wasHeld = previous.accounts[session.slot]?.restoreHeldBy != nil
        let blockerRestored = fired.contains { window, event in
            if case .session = window.kind { return false }
            return window.binding && event.kind == .restored
        }
        var events: [TransitionEvent] = []
        for (window, event) in fired {
            if case .session = window.kind, event.kind == .restored {
                if let blocker = blockers.first {
                    // Not a restore: nothing can be used. Remembered as still used up, waiting on the blocker.
                    if var state = next.accounts[session.slot] {
                        state.remainingPercent = 0
                        state.restoreHeldBy = blocker.name
                        next.accounts[session.slot] = state
                    }
                    continue
                }
                // Held until now, and the blocker comes back in this run: its restore says both.
                if wasHeld && blockerRestored { continue }
                next.accounts[session.slot]?.restoreHeldBy = nil
            }
            // A due session is available by its provider's word (its reset passed while it was held).
            if event.kind == .restored, window.binding, blockers.isEmpty, wasHeld,
                var state = next.accounts[session.slot],
                session.window.due || session.window.remainingPercent > WindowLevel.depletedThreshold
            {
                // The held session restore is folded into this one, not fired beside it.
                state.restoreHeldBy = nil
                state.remainingPercent = session.window.due ? 100 : session.window.remainingPercent
                next.accounts[session.slot] = state
                events.append(event.withSessionAvailable(after: window.kind))
                continue
            }
            events.append(event)
        }
        return events
    }
}
