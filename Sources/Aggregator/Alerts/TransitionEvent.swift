import Portable
import Snapshots

/// Something a person should be told about a session window: it ran out, came back, or is running low.
public struct TransitionEvent: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case depleted, restored, warning
        /// A window will run out before its reset at the pace so far (`check --warn-pace`).
        case pace
    }

    /// Stable for the life of the event: derived from the account, the kind, the threshold (warnings)
    /// and the `lastUpdated` of the entry that caused it, so a retried delivery is the same event.
    public var id: String
    public var kind: Kind
    public var providerID: String
    public var accountEmail: String?
    public var remainingPercent: Double
    public var resetsAt: Date?
    public var title: String
    public var body: String
    /// When the provider's figures showed the change: the causing entry's `lastUpdated`.
    public var at: Date
    /// The crossed threshold of a warning.
    public var threshold: Int?
    /// The window of the event when it is not the session's: `weekly` (a pace event's, or a weekly-only
    /// account's); nil for the session.
    public var window: String?

    public init(
        kind: Kind, key: AccountKey, providerID: String, accountEmail: String?, remainingPercent: Double,
        resetsAt: Date?, at: Date, threshold: Int? = nil, window: String? = nil, etaSeconds: Double? = nil
    ) {
        self.kind = kind
        self.providerID = providerID
        self.accountEmail = accountEmail
        self.remainingPercent = remainingPercent
        self.resetsAt = resetsAt
        self.at = at
        self.threshold = threshold
        self.window = window
        // A weekly-only account's window is in its ids only for pace events, whose ids always named it.
        id = TransitionEvent.id(
            key: key, kind: kind, detail: threshold.map(String.init) ?? (kind == .pace ? window ?? "session" : window),
            at: at)
        let name = window ?? "session"
        let capitalized = name.prefix(1).uppercased() + name.dropFirst()
        let provider = ProviderNames.displayName(of: providerID)
        let account = accountEmail.map { " Account: \($0)." } ?? ""
        switch kind {
        case .depleted:
            title = "\(provider) \(name) depleted"
            let reset = resetsAt.map { " Resets at \(RFC3339.format($0))." } ?? ""
            body = "0% left. Will notify when it's available again.\(account)\(reset)"
        case .restored:
            title = "\(provider) \(name) restored"
            body = "\(capitalized) quota is available again.\(account)"
        case .warning:
            title = "\(provider) \(name) quota low"
            let reset = resetsAt.map { " Resets at \(RFC3339.format($0))." } ?? ""
            body = "\(Int(remainingPercent.rounded(.down)))% left.\(account)\(reset)"
        case .pace:
            title = "\(provider) \(name) will run out before reset"
            let eta = etaSeconds.map { "Runs out in about \(DurationText.short($0)) at this pace" } ?? "Runs out soon"
            let reset = resetsAt.map { ", before its reset at \(RFC3339.format($0))" } ?? ""
            body = "\(eta)\(reset). \(Int(remainingPercent.rounded(.down)))% left.\(account)"
        }
    }

    /// `evt-` and 16 hex digits of an FNV-1a hash: the same inputs give the same id on every machine.
    /// - Parameter detail: a warning's threshold, a pace event's window; nothing for the others.
    static func id(key: AccountKey, kind: Kind, detail: String?, at: Date) -> String {
        let text = "\(key)|\(kind.rawValue)|\(detail ?? "")|\(RFC3339.format(at))"
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        let hex = String(hash, radix: 16)
        return "evt-" + String(repeating: "0", count: 16 - hex.count) + hex
    }
}
