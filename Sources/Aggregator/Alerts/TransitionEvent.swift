import Portable
import Serialization
import Snapshots

/// Something a person should be told about a window: it ran out, came back, or is running low.
public struct TransitionEvent: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case depleted, restored, warning
        /// A window will run out before its reset at the pace so far (`check --warn-pace`).
        case pace
        /// A month's spend crossed a share of its budget (`check --budget`).
        case budget
    }

    /// The window an event is about.
    public enum Window: Sendable, Equatable {
        case session, weekly
        /// A limit, by its id and the provider's name for it.
        case limit(id: String, label: String)

        /// `session`, `weekly` or the limit's id: the event's `window`.
        public var name: String {
            switch self {
            case .session: "session"
            case .weekly: "weekly"
            case .limit(let id, _): id
            }
        }

        /// The window with its label cut to `TransitionEvent.labelLimit` characters, for what people read.
        var shortened: Window {
            guard case .limit(let id, let label) = self, label.count > TransitionEvent.labelLimit else { return self }
            return .limit(id: id, label: label.prefix(TransitionEvent.labelLimit - 1) + "…")
        }
    }

    /// Stable for the life of the event: derived from the account, the window (but the session's, whose
    /// ids version 1 made without it), the kind, the threshold (warnings) and the `lastUpdated` of the
    /// entry that caused it, so a retried delivery is the same event.
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
    /// `session`, `weekly` or a limit's id.
    public var window: String

    public init(
        kind: Kind, key: AccountKey, providerID: String, accountEmail: String?, remainingPercent: Double,
        resetsAt: Date?, at: Date, threshold: Int? = nil, window: Window = .session, etaSeconds: Double? = nil,
        atReset: Bool = false, zone: ZoneInfo = .utc
    ) {
        self.kind = kind
        self.providerID = providerID
        self.accountEmail = accountEmail
        self.remainingPercent = remainingPercent
        self.resetsAt = resetsAt
        self.at = at
        self.threshold = threshold
        self.window = window.name
        let windowDetail: String? = window == .session ? nil : window.name
        let detail: String? =
            switch kind {
            case .warning: [windowDetail, threshold.map(String.init)].compactMap { $0 }.joined(separator: ":")
            case .pace: window.name
            case .depleted, .restored, .budget: windowDetail
            }
        id = TransitionEvent.id(key: key, kind: kind, detail: detail, at: at)
        let provider = ProviderNames.displayName(of: providerID)
        let shown = window.shortened
        let account = accountEmail.map { " Account: \($0)." } ?? ""
        let reset = resetsAt.map { " Resets at \(zone.peopleText($0))." } ?? ""
        // The titles of the desktop app this follows: "session depleted", "weekly quota depleted",
        // "<label> limit reached".
        let (depleted, restored, low, available): (String, String, String, String) =
            switch shown {
            case .session:
                ("session depleted", "session restored", "session quota low", "Session quota is available again.")
            case .weekly:
                (
                    "weekly quota depleted", "weekly quota restored", "weekly quota low",
                    "Weekly quota is available again."
                )
            case .limit(_, let label):
                (
                    "\(label) limit reached", "\(label) limit available again", "\(label) quota low",
                    "\(label) is available again."
                )
            }
        switch kind {
        case .depleted:
            title = "\(provider) \(depleted)"
            body = "0% left. Will notify when it's available again.\(account)\(reset)"
        case .restored:
            title = "\(provider) \(restored)"
            // At its reset, with no newer figures: the reset is what says so.
            let when = atReset ? (resetsAt.map { " It reset at \(zone.peopleText($0))." } ?? "") : ""
            body = "\(available)\(when)\(account)"
        case .warning:
            title = "\(provider) \(low)"
            body = "\(Int(remainingPercent.rounded(.down)))% left.\(account)\(reset)"
        case .budget:
            // A budget's event is made by `init(budget:threshold:at:)`, from its standing.
            title = "\(provider) spend"
            body = ""
        case .pace:
            let name =
                switch shown {
                case .session, .weekly: window.name
                case .limit(_, let label): label
                }
            title = "\(provider) \(name) will run out before reset"
            let eta = etaSeconds.map { "Runs out in about \(DurationText.short($0)) at this pace" } ?? "Runs out soon"
            let before = resetsAt.map { ", before its reset at \(zone.peopleText($0))" } ?? ""
            body = "\(eta)\(before). \(Int(remainingPercent.rounded(.down)))% left.\(account)"
        }
    }

    /// The most of a limit's label a message shows: a record's 5000-character label filled a Discord
    /// message and cut off the account and the reset, the facts the message is for.
    static let labelLimit = 60

    /// This restore with the session's held restore folded in: what is available now is both.
    func withSessionAvailable(after blocker: Window) -> TransitionEvent {
        var event = self
        let what =
            switch blocker.shortened {
            case .limit(_, let label): "Session quota and \(label) are"
            default: "Session and weekly quota are"
            }
        let account = accountEmail.map { " Account: \($0)." } ?? ""
        event.body = "\(what) available again.\(account)"
        return event
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
