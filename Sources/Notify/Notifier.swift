import Portable

// `RetryPolicy` lives with the HTTP client, which retries requests the same way; re-exported here for
// the delivery loop below.
@_exported import struct HTTP.RetryPolicy

/// A way to tell a person something: standard output, a desktop notification, a hook, a webhook.
public protocol Notifier: Sendable {
    /// Identifies the backend in the outbox (`stdout`, `command:/path/to/hook`, ...): what was delivered
    /// where is remembered under this name. Never contains a secret.
    var name: String { get }

    /// Delivers one notification, or throws `NotifierError` with a one-line reason.
    ///
    /// May be called again with the same notification after a failure or a crash: backends that can,
    /// pass the `id` on so that the receiver can tell a repeat.
    func deliver(_ notification: Notification) throws

    /// Whether a person reads each message (a desktop, a phone through ntfy, a chat): such a backend gets
    /// at most `Outbox.notificationsPerRun` a run, then one summary. Programs (stdout, hooks, webhooks)
    /// get every event.
    var isPersonFacing: Bool { get }

    /// Whether it reaches a channel every machine's `check` reaches alike (ntfy, Slack, Discord, a webhook):
    /// one machine sends each event there (`SharedDelivery`). A desktop, stdout or a hook is this machine's.
    var isShared: Bool { get }
}

extension Notifier {
    public var isPersonFacing: Bool { false }
    public var isShared: Bool { false }
}

/// Why a backend could not deliver: one lowercase line, no secrets.
public struct NotifierError: Error, Equatable, Sendable, CustomStringConvertible {
    public var reason: String
    /// The backend did not answer in time (a hook past its limit, a webhook that holds the connection):
    /// tried again at once it would cost the same wait, so it is not retried within the run.
    public var timedOut: Bool

    public init(_ reason: String, timedOut: Bool = false) {
        self.reason = reason
        self.timedOut = timedOut
    }

    public var description: String { reason }
}

extension RetryPolicy {
    /// Delivers with retries; the last failure when every attempt failed. A timeout ends the attempts at
    /// once: a hook that hangs held the state lock for four times its limit every run, and a webhook
    /// that answers slowly got four POSTs; the outbox then counts the backend down for the run, and the
    /// next run tries again.
    public func deliver(_ notification: Notification, with notifier: any Notifier) -> NotifierError? {
        var last: NotifierError?
        for attempt in 1...max(1, attempts) {
            do {
                try notifier.deliver(notification)
                return nil
            } catch let error as NotifierError {
                if error.timedOut { return error }
                last = error
            } catch {
                last = NotifierError("\(error)")
            }
            if attempt < attempts { sleep(delay(after: attempt)) }
        }
        return last
    }
}
