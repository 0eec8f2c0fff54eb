import Portable

/// How hard to try something that may fail for a moment: attempts, growing waits, jitter (the alert rules).
/// Shared by every backend that retries: HTTP requests, notification delivery.
public struct RetryPolicy: Sendable {
    public var attempts: Int
    public var initialDelay: TimeInterval
    public var maximumDelay: TimeInterval
    /// Each wait varies by up to this fraction either way, so that machines retrying together spread out.
    public var jitter: Double
    /// Waits; real sleeping in the binary, nothing in tests that count the waits.
    public var sleep: @Sendable (TimeInterval) -> Void

    public static let standard = RetryPolicy(
        attempts: 4, initialDelay: 0.25, maximumDelay: 2, jitter: 0.2, sleep: { FileSystem.sleep(seconds: $0) })

    /// One attempt only.
    public static let never = RetryPolicy(attempts: 1, initialDelay: 0, maximumDelay: 0, jitter: 0, sleep: { _ in })

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
}
