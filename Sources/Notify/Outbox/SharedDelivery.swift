/// Who tells a shared channel (a phone through ntfy, a chat, a webhook) of an event, when several machines
/// run `check` on one store: each event once per store (docs/alerts.md, "Once per person"). Made by the command
/// line from the store's claims; the outbox asks it before the first shared backend is tried.
public protocol SharedDelivery {
    /// Whether this machine sends `event` to its shared backends now.
    func decide(_ event: String) -> SharedDecision
    /// Every shared backend of this run took `event`: the others need not wait for it.
    func delivered(_ event: String)
}

public enum SharedDecision: Sendable, Equatable {
    /// This machine sends it (it claimed it, or took over a claim left unmarked too long).
    case send
    /// Another machine sent it: it counts as delivered to the shared backends here.
    case deliveredElsewhere
    /// Another machine claimed it and has not said it was delivered: kept queued, asked again next run.
    case waiting
}
