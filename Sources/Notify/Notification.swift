import Portable
import TextSafety

/// A message for a person about their quota, as every notification backend receives it.
///
/// Free of store and record types: a backend needs the words, an identity and a few facts to pass on.
/// Its texts for people (title, body) quote records, so each is made one safe line when the notification
/// is made: no backend can pass a control character on to a terminal, a log or a desktop. The account
/// is kept as the record has it, as `status --json` has it, so that a program can match the two: JSON
/// escapes it, and a hook's variables get it made safe.
public struct Notification: Sendable, Equatable, Codable {
    public enum Urgency: String, Sendable, Codable {
        case normal, critical
    }

    /// Stable across retries: a backend that sees the same id twice is seeing one event delivered again.
    public var id: String
    /// `depleted`, `restored`, `warning` or `pace`.
    public var kind: String
    /// The window it is about: `session`, `weekly`, or a limit's id (`opus-weekly`).
    public var window: String
    public var providerID: String
    /// As `status --json` has it: the value itself, never shown to a person as it is.
    public var accountEmail: String?
    public var remainingPercent: Double
    public var resetsAt: Date?
    public var title: String
    public var body: String
    /// When the change was observed.
    public var at: Date
    public var urgency: Urgency

    public init(
        id: String, kind: String, window: String = "session", providerID: String, accountEmail: String?,
        remainingPercent: Double, resetsAt: Date?, title: String, body: String, at: Date, urgency: Urgency
    ) {
        self.id = id
        self.kind = kind
        self.window = SafeText.line(window)
        self.providerID = SafeText.line(providerID)
        self.accountEmail = accountEmail
        self.remainingPercent = remainingPercent
        self.resetsAt = resetsAt
        self.title = SafeText.line(title)
        self.body = SafeText.line(body)
        self.at = at
        self.urgency = urgency
    }

    enum CodingKeys: String, CodingKey {
        case id, kind, window, providerID, accountEmail, remainingPercent, resetsAt, title, body, at, urgency
    }

    /// Reads what the state file's outbox holds. Files written before notifications carried their urgency
    /// have none: a depleted event is critical, as it was when it was made; before they carried their
    /// window, every event was the session's (or said otherwise in its title).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decode(String.self, forKey: .kind)
        self.init(
            id: try container.decode(String.self, forKey: .id), kind: kind,
            window: try container.decodeIfPresent(String.self, forKey: .window) ?? "session",
            providerID: try container.decode(String.self, forKey: .providerID),
            accountEmail: try container.decodeIfPresent(String.self, forKey: .accountEmail),
            remainingPercent: try container.decode(Double.self, forKey: .remainingPercent),
            resetsAt: try container.decodeIfPresent(Date.self, forKey: .resetsAt),
            title: try container.decode(String.self, forKey: .title),
            body: try container.decode(String.self, forKey: .body), at: try container.decode(Date.self, forKey: .at),
            urgency: try container.decodeIfPresent(Urgency.self, forKey: .urgency)
                ?? (kind == "depleted" ? .critical : .normal))
    }

    /// The event as one line of JSON: `{"id", "kind", "window", "providerID", "accountEmail",
    /// "remainingPercent", "resetsAt", "title", "body", "at"}` (the command-line contract), keys sorted,
    /// `null` for absent values.
    public var jsonLine: String {
        let fields: [(String, String)] = [
            ("accountEmail", Self.quoted(accountEmail)), ("at", Self.quoted(Notification.format(at))),
            ("body", Self.quoted(body)), ("id", Self.quoted(id)), ("kind", Self.quoted(kind)),
            ("providerID", Self.quoted(providerID)), ("remainingPercent", Self.number(remainingPercent)),
            ("resetsAt", Self.quoted(resetsAt.map(Notification.format))), ("title", Self.quoted(title)),
            ("window", Self.quoted(window)),
        ]
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    /// `text` as a JSON string (`null` for none), as JSONEncoder escapes it, `/` left as it is.
    static func quoted(_ text: String?) -> String {
        guard let text, let encoded = try? stringEncoder.encode(text) else { return "null" }
        return String(decoding: encoded, as: UTF8.self)
    }

    private static let stringEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()

    /// A number as JSON writes it: whole numbers without a fraction.
    static func number(_ value: Double) -> String {
        value.isFinite ? value.plainText : "null"
    }

    /// `AGGCTL_EVENT_*` variables for hooks (never interpreted by a shell), each one safe line: a variable
    /// cannot hold a NUL, and a hook may well print one. The JSON on the hook's stdin has the account as
    /// it is.
    public var environment: [String: String] {
        var variables = [
            "AGGCTL_EVENT_ID": id, "AGGCTL_EVENT_KIND": kind, "AGGCTL_EVENT_WINDOW": window,
            "AGGCTL_EVENT_PROVIDER": providerID,
            "AGGCTL_EVENT_REMAINING_PERCENT": String(remainingPercent), "AGGCTL_EVENT_TITLE": title,
            "AGGCTL_EVENT_BODY": body, "AGGCTL_EVENT_AT": Notification.format(at),
        ]
        if let accountEmail { variables["AGGCTL_EVENT_ACCOUNT"] = SafeText.line(accountEmail) }
        if let resetsAt { variables["AGGCTL_EVENT_RESETS_AT"] = Notification.format(resetsAt) }
        return variables
    }

    /// `2026-11-30T12:00:00Z`: whole seconds, UTC.
    static func format(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
