import Portable
import Serialization

/// A limit beyond the session and weekly windows (the record format, "Limits"): a per-model week
/// (Claude's Opus), a per-feature window (Codex's Spark), a monthly quota (Copilot's premium requests, a
/// credit pool) or a spend limit in money.
public struct Limit: Codable, Sendable, Equatable, SchemaObject {
    /// Stable within the provider, `[a-z0-9-]+`, named `<what>-<period>`: `opus-weekly`, `spark-session`,
    /// `premium-monthly`, `spend-monthly`.
    public var id: String
    /// The provider's own name for it ("Opus", "Spark", "Premium requests", "Spend").
    public var label: String
    /// 300, 1440, 10080; 43200 for a calendar month (its reset is `resetsAt`); nil when unknown.
    public var windowMinutes: Int?
    /// As reported; above 100 when the provider reports overage.
    public var usedPercent: Double
    public var resetsAt: Date?
    /// The amounts behind the percent, in `unit`.
    public var used: Double?
    public var limit: Double?
    /// "requests", "credits", "tokens", or an ISO 4217 code ("USD", "EUR") for money.
    public var unit: String?
    /// Whether reaching it stops every use of the account (a monthly request quota, a spend limit); false
    /// when it stops one model or feature (Opus, Spark).
    public var binding: Bool

    public init(
        id: String, label: String, windowMinutes: Int? = nil, usedPercent: Double, resetsAt: Date? = nil,
        used: Double? = nil, limit: Double? = nil, unit: String? = nil, binding: Bool = false
    ) {
        self.id = id
        self.label = label
        self.windowMinutes = windowMinutes
        self.usedPercent = usedPercent
        self.resetsAt = resetsAt
        self.used = used
        self.limit = limit
        self.unit = unit
        self.binding = binding
    }

    static let schema = Schema<Limit>([
        .field("id", \.id),
        .field("label", \.label),
        .field("windowMinutes", \.windowMinutes),
        .field("usedPercent", \.usedPercent),
        .field("resetsAt", \.resetsAt),
        .field("used", \.used),
        .field("limit", \.limit),
        .field("unit", \.unit),
        .field("binding", \.binding),
    ])

    static var blank: Limit { Limit(id: "", label: "", usedPercent: 0) }

    /// The figures as a window: what levels, pace and alerts are judged from.
    public var window: UsageWindow {
        UsageWindow(usedPercent: usedPercent, windowMinutes: windowMinutes, resetsAt: resetsAt)
    }

    /// Ids a limit cannot have: the names of the windows beside it (`session`, `weekly`) and of the budget
    /// events. Alerts, metrics and `check`'s JSON name a window by them, so a limit called `weekly` would
    /// stand for the real week: hide its depletion, or fire its restore while it is still used up.
    public static let reservedIDs: Set<String> = ["session", "weekly", "budget"]

    /// Whether `id` is a valid limit id, checked byte by byte: every limit of every record passes here.
    static func isPlainID(_ id: String) -> Bool {
        var id = id
        let plain = id.withUTF8 { bytes in
            guard !bytes.isEmpty, bytes.count <= 64 else { return false }
            for byte in bytes {
                guard (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x2D else { return false }
            }
            return true
        }
        // Only a six- or seven-letter id can be reserved: the common case compares no text.
        return plain && !((6...7).contains(id.utf8.count) && reservedIDs.contains(id))
    }

    /// Why `candidate` is not a valid limit id, or nil when it is one (the same rule as provider ids, and
    /// not one of `reservedIDs`).
    public static func problem(withID candidate: String) -> String? {
        if candidate.isEmpty { return "a limit id cannot be empty" }
        if reservedIDs.contains(candidate) {
            return "a limit id cannot be '\(candidate)': that names a window of its own"
        }
        if candidate.utf8.count > 64 { return "a limit id has at most 64 characters" }
        let valid = candidate.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
        }
        return valid ? nil : "a limit id has only lowercase letters, digits and '-'"
    }

    /// A limit of a window a source names in its own words (`GPT-5.3-Codex-Spark`, `monthly credits`,
    /// `Fable only`), with an id made as the record format asks, `<what>-<period>`: `what` from the words
    /// (`spark` for Codex's Spark models), `period` from the length (`session` up to a day, `daily`,
    /// `weekly` for 4 to 10 days, `monthly` for 28 to 31, else minutes, `window` when unknown); words
    /// naming the period already ("monthly credits") do not name it twice.
    public init(named label: String, window: UsageWindow, binding: Bool) {
        let minutes = window.windowMinutes
        let period =
            switch minutes {
            case nil: "window"
            case let minutes? where minutes < 1440: "session"
            case 1440?: "daily"
            case let minutes? where (4 * 1440...10 * 1440).contains(minutes): "weekly"
            case let minutes? where (28 * 1440...31 * 1440).contains(minutes): "monthly"
            case let minutes?: "\(minutes)m"
            }
        let words = label.lowercased().split { !(($0.isLetter || $0.isNumber) && $0.isASCII) }
        let what = words.contains("spark") ? "spark" : words.joined(separator: "-")
        var id = what.isEmpty ? period : (words.contains(Substring(period)) ? what : "\(what)-\(period)")
        // Never `session` or `weekly` (an unnamed limit, or one a source calls "Weekly"): those name the
        // windows themselves.
        if Self.reservedIDs.contains(id) { id = "limit-" + id }
        self.init(
            id: String(id.prefix(64)), label: words.contains("spark") ? "Spark" : label, windowMinutes: minutes,
            usedPercent: window.usedPercent, resetsAt: window.resetsAt, binding: binding)
    }

    /// A per-model week of an older record (`modelWeekly`) as the limit it stands for: id
    /// `<name>-weekly`, the name capitalised as its label, a week long, not binding.
    public init(modelWeekly model: NamedWindow) {
        let slug = String(
            String.UnicodeScalarView(
                model.name.lowercased().unicodeScalars.map { scalar in
                    ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) ? scalar : "-"
                }))
        let label = model.name.prefix(1).uppercased() + model.name.dropFirst()
        self.init(
            id: (slug.isEmpty ? "model" : slug) + "-weekly", label: label,
            windowMinutes: model.window.windowMinutes ?? 10_080, usedPercent: model.window.usedPercent,
            resetsAt: model.window.resetsAt, binding: false)
    }
}

/// `true`/`false` in a record, a byte in the caches.
extension Bool: SchemaValue {
    static func read(_ s: inout JSONScanner, _: HistoryDetail) throws(FastRecordDecoder.Failure) -> Bool {
        try FastRecordDecoder.bool(&s)
    }
    func write(to json: inout RecordJSON) { json.boolean(self) }
    func keep(in out: inout BinaryWriter) { out.u8(self ? 1 : 0) }
    static func restore(from reader: inout BinaryReader) throws -> Bool {
        switch try reader.u8() {
        case 0: return false
        case 1: return true
        default: throw BinaryReader.Corrupt()
        }
    }
}
