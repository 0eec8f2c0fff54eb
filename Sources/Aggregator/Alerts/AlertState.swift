import Portable

/// What transition detection remembers between runs, per account.
///
/// Persisted in `check`'s delivery ledger (Notify's `DeliveryLedger`) beside the outbox of undelivered
/// events: its members are the top of `alerts.json`.
public struct AlertState: Codable, Sendable, Equatable {
    /// By `AccountKey.description`.
    public var accounts: [String: AccountAlertState] = [:]
    /// Pace events fired, by `"<key>|<window>"`: the reset time of the window each was fired for, so
    /// that one fires once per window and reset, and the next reset arms it again.
    public var paceAlerted: [String: Date] = [:]
    /// Budget events fired, by `"<budget>|<threshold>"`: the month each last fired in.
    public var budgetsAlerted: [String: String] = [:]

    public init() {}

    enum CodingKeys: String, CodingKey {
        case accounts, paceAlerted, budgetsAlerted
    }

    /// `accounts` is in every file a release wrote; `paceAlerted` only since `--warn-pace` (older files
    /// have none: nothing fired yet).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        accounts = try container.decode([String: AccountAlertState].self, forKey: .accounts)
        paceAlerted = try container.decodeIfPresent([String: Date].self, forKey: .paceAlerted) ?? [:]
        budgetsAlerted = try container.decodeIfPresent([String: String].self, forKey: .budgetsAlerted) ?? [:]
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(accounts, forKey: .accounts)
        try container.encode(paceAlerted, forKey: .paceAlerted)
        if !budgetsAlerted.isEmpty { try container.encode(budgetsAlerted, forKey: .budgetsAlerted) }
    }

    /// How long an account that is no longer in the store is remembered, counted from the first run
    /// that did not see it: a device forgotten or an account given up must not cost every run for ever.
    public static let forgetAfter: TimeInterval = 30 * 86_400

    /// Marks windows absent from `present` (slots: `TransitionDetector.slots(of:)`) as absent since `now`
    /// (when not already), clears the mark of those present, and forgets those absent for longer than
    /// `forgetAfter`.
    ///
    /// Counted from the absence, not from the account's last figures: an account whose figures were
    /// a month old was forgotten after one run that could not read its record, and its `depleted` fired
    /// again with the same id when the record came back.
    public mutating func forget(accountsNotIn present: Set<String>, now: Date) {
        for key in Array(accounts.keys) {
            if present.contains(key) {
                if accounts[key]?.absentSince != nil { accounts[key]?.absentSince = nil }
            } else if let since = accounts[key]?.absentSince {
                if now.timeIntervalSince(since) > Self.forgetAfter { accounts[key] = nil }
            } else {
                accounts[key]?.absentSince = now
            }
        }
        // A window past its reset is armed again whatever is remembered: only later resets need keeping.
        paceAlerted = paceAlerted.filter { _, resetsAt in now.timeIntervalSince(resetsAt) <= 86_400 }
    }
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
    /// Which window the state follows: nil is the session; `weekly` or a limit's id for the others (a
    /// version-1 file kept a weekly-only account's `weekly` under the account's key).
    public var window: String?
    /// The session's restore is held because this window (`weekly`, a binding limit's id) is used up:
    /// nothing can be used until it comes back, and its restore then says both are available.
    public var restoreHeldBy: String?
    /// The first run that did not find the account in the store, while it stays away; nil while it is
    /// there. Forgotten `AlertState.forgetAfter` after that.
    public var absentSince: Date?

    public init(
        remainingPercent: Double, lastUpdated: Date, resetsAt: Date?, heldRestore: HeldRestore? = nil,
        armedWarnings: [Int] = [], window: String? = nil, absentSince: Date? = nil, restoreHeldBy: String? = nil
    ) {
        self.remainingPercent = remainingPercent
        self.lastUpdated = lastUpdated
        self.resetsAt = resetsAt
        self.heldRestore = heldRestore
        self.armedWarnings = armedWarnings
        self.window = window
        self.absentSince = absentSince
        self.restoreHeldBy = restoreHeldBy
    }
}

/// An early restore waiting for confirmation.
public struct HeldRestore: Codable, Sendable, Equatable {
    public var remainingPercent: Double
    public var lastUpdated: Date
    public var resetsAt: Date?

    public init(remainingPercent: Double, lastUpdated: Date, resetsAt: Date?) {
        self.remainingPercent = remainingPercent
        self.lastUpdated = lastUpdated
        self.resetsAt = resetsAt
    }
}
