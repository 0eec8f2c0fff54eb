import Foundation

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
}

/// Why a backend could not deliver: one lowercase line, no secrets.
public struct NotifierError: Error, Equatable, Sendable, CustomStringConvertible {
    public var reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}

/// How hard to try one backend within a run: attempts, growing waits, jitter (SPEC section 5).
public struct RetryPolicy: Sendable {
    public var attempts: Int
    public var initialDelay: TimeInterval
    public var maximumDelay: TimeInterval
    /// Each wait varies by up to this fraction either way, so that machines retrying together spread out.
    public var jitter: Double
    /// Waits; real sleeping in the binary, nothing in tests.
    public var sleep: @Sendable (TimeInterval) -> Void

    public static let standard = RetryPolicy(
        attempts: 4, initialDelay: 0.25, maximumDelay: 2, jitter: 0.2, sleep: { Thread.sleep(forTimeInterval: $0) })

    public init(
        attempts: Int, initialDelay: TimeInterval, maximumDelay: TimeInterval, jitter: Double,
        sleep: @escaping @Sendable (TimeInterval) -> Void
    ) {
        self.attempts = attempts
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.jitter = jitter
        self.sleep = sleep
    }

    /// The wait before attempt `attempt + 1` (after `attempt` failures, counting from 1).
    public func delay(after attempt: Int) -> TimeInterval {
        let base = min(maximumDelay, initialDelay * pow(2, Double(attempt - 1)))
        return base * (1 + Double.random(in: -jitter...jitter))
    }

    /// Delivers with retries; the last failure when every attempt failed.
    public func deliver(_ notification: Notification, with notifier: any Notifier) -> NotifierError? {
        var last: NotifierError?
        for attempt in 1...max(1, attempts) {
            do {
                try notifier.deliver(notification)
                return nil
            } catch let error as NotifierError {
                last = error
            } catch {
                last = NotifierError("\(error)")
            }
            if attempt < attempts { sleep(delay(after: attempt)) }
        }
        return last
    }
}
