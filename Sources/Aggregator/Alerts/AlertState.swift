import Foundation

/// What transition detection remembers between runs, per account, and the events not yet delivered.
///
/// Persisted as canonical JSON in the state directory (`StateFile`); `schemaVersion` on the document.
public struct AlertState: Codable, Sendable, Equatable {
    public var schemaVersion = 1
    /// By `AccountKey.description`.
    public var accounts: [String: AccountAlertState] = [:]
    /// Events created but not yet delivered to every backend, oldest first.
    public var outbox: [PendingEvent] = []

    public init() {}
}

/// The remembered session window of one account.
public struct AccountAlertState: Codable, Sendable, Equatable {
    /// Remaining percent of the session window behind the state.
    public var remainingPercent: Double
    /// The `lastUpdated` of the entry behind the state: only a newer entry moves it.
    public var lastUpdated: Date
    /// The window's reset time, when the provider gave one: a restore reported before it is held.
    public var resetsAt: Date?
    /// A restore reported early, waiting for a newer entry that is not depleted to confirm it.
    public var heldRestore: HeldRestore?
    /// Warning thresholds the remaining percent was above when the state was written. Kept in the file
    /// for older releases, which read it; the detector judges what is armed from `remainingPercent` and
    /// the thresholds of the run, so that a threshold added later is armed too.
    public var armedWarnings: [Int]

    public init(
        remainingPercent: Double, lastUpdated: Date, resetsAt: Date?, heldRestore: HeldRestore? = nil,
        armedWarnings: [Int] = []
    ) {
        self.remainingPercent = remainingPercent
        self.lastUpdated = lastUpdated
        self.resetsAt = resetsAt
        self.heldRestore = heldRestore
        self.armedWarnings = armedWarnings
    }
}

/// An early restore waiting for confirmation.
public struct HeldRestore: Codable, Sendable, Equatable {
    public var remainingPercent: Double
    public var lastUpdated: Date
    public var resetsAt: Date?
}

/// An event in the outbox, with the backends that have it already.
public struct PendingEvent: Codable, Sendable, Equatable {
    public var event: TransitionEvent
    /// When it was created (the run's real time): events failing for over a day are dropped.
    public var createdAt: Date
    /// Names of the backends that delivered it (`stdout`, `command:/path`, ...).
    public var deliveredTo: [String]

    public init(event: TransitionEvent, createdAt: Date, deliveredTo: [String] = []) {
        self.event = event
        self.createdAt = createdAt
        self.deliveredTo = deliveredTo
    }
}
