import Portable

/// What one machine knows about one provider account: its limit windows and its own token ledger.
public struct ProviderUsage: Codable, Sendable, Equatable, SchemaObject {
    /// Lowercase provider id: `claude`, `codex`, `cursor`, ... (`[a-z0-9-]+`).
    public var providerID: String
    /// The account the figures belong to. Without one, the entry can never be matched with another device's.
    public var accountEmail: String?
    public var plan: String?
    /// When these figures were read from the provider: what decides which device's figures win.
    public var lastUpdated: Date
    /// The short window (5 hours for Claude and Codex).
    public var session: UsageWindow?
    /// The weekly window over all models.
    public var weekly: UsageWindow?
    /// Per-model weeks as version 1 wrote them (`[{"name", "window"}]`): read from older records, where
    /// validation turns each into the limit it stands for (`Limit(modelWeekly:)`); never written.
    public var modelWeekly: [NamedWindow]?
    /// Every other limit the provider reports (the record format, "Limits"), by id.
    public var limits: [Limit]?
    public var tokens: TokenUsage?
    public var costUSD: CostUsage?
    /// History of the weekly window as this device observed it, oldest first (the record format, "History").
    public var weeklySamples: [UsageSample]?
    /// History of the session window, the same way.
    public var sessionSamples: [UsageSample]?
    /// Why figures are missing ("signed out", "could not read usage", ...).
    public var error: String?
    /// The last week of `weeklySamples` by half day, kept when a reader skips the samples themselves;
    /// not part of the record's JSON.
    public var weeklyTrend: WeeklyTrend?

    enum CodingKeys: String, CodingKey {
        case providerID, accountEmail, plan, lastUpdated, session, weekly, modelWeekly, limits, tokens, costUSD
        case weeklySamples, sessionSamples, error
    }

    public init(
        providerID: String, accountEmail: String? = nil, plan: String? = nil, lastUpdated: Date,
        session: UsageWindow? = nil, weekly: UsageWindow? = nil, modelWeekly: [NamedWindow]? = nil,
        limits: [Limit]? = nil, tokens: TokenUsage? = nil, costUSD: CostUsage? = nil,
        weeklySamples: [UsageSample]? = nil,
        sessionSamples: [UsageSample]? = nil, error: String? = nil, weeklyTrend: WeeklyTrend? = nil
    ) {
        self.providerID = providerID
        self.accountEmail = accountEmail
        self.plan = plan
        self.lastUpdated = lastUpdated
        self.session = session
        self.weekly = weekly
        self.modelWeekly = modelWeekly
        self.limits = limits
        self.tokens = tokens
        self.costUSD = costUSD
        self.weeklySamples = weeklySamples
        self.sessionSamples = sessionSamples
        self.error = error
        self.weeklyTrend = weeklyTrend
    }

    /// The record format's members, in the order above (`SchemaObject`): the one place a member's key,
    /// property and handling are said.
    static let schema = Schema<ProviderUsage>([
        .field("providerID", \.providerID),
        .field("accountEmail", \.accountEmail),
        .field("plan", \.plan),
        .field("lastUpdated", \.lastUpdated),
        .droppable("session", \.session),
        .droppable("weekly", \.weekly),
        .droppingElements("modelWeekly", \.modelWeekly),
        .droppingElements("limits", \.limits),
        .droppable("tokens", \.tokens),
        .droppable("costUSD", \.costUSD),
        .history("weeklySamples", \.weeklySamples) { (s, usage) throws(FastRecordDecoder.Failure) in
            usage.weeklyTrend = try FastRecordDecoder.weeklyTrend(&s)
        },
        .history("sessionSamples", \.sessionSamples),
        .field("error", \.error),
        .derived("weeklyTrend", \.weeklyTrend),
    ])

    static var blank: ProviderUsage { ProviderUsage(providerID: "", lastUpdated: Date(timeIntervalSince1970: 0)) }

    /// Whether the entry carries a figure of a window (session, weekly or a limit): what a merge may
    /// show for the account. An entry with only an `error` or a ledger does not. Inlinable: called from
    /// the merge (another module) for every entry, it made a copy of each whole entry to call through.
    @inlinable
    public var hasWindows: Bool {
        session != nil || weekly != nil || !(limits ?? []).isEmpty || !(modelWeekly ?? []).isEmpty
    }

    /// The newest moment the entry carries: its `lastUpdated`, or a sample or trend point after it (a read
    /// record keeps them within a tolerance of it). A merge tells by it whether clock skew left anything out.
    @inlinable
    public var newestMoment: Date {
        var newest = lastUpdated
        for sample in sessionSamples ?? [] where sample.at > newest { newest = sample.at }
        for sample in weeklySamples ?? [] where sample.at > newest { newest = sample.at }
        for point in weeklyTrend?.points ?? [] where point.at > newest.timeIntervalSince1970 {
            newest = Date(timeIntervalSince1970: point.at)
        }
        return newest
    }

    /// Why `candidate` is not a valid provider id, or nil when it is one.
    public static func problem(withProviderID candidate: String) -> String? {
        if candidate.isEmpty { return "a provider id cannot be empty" }
        if candidate.utf8.count > 64 { return "a provider id has at most 64 characters" }
        let valid = candidate.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
        }
        return valid ? nil : "a provider id has only lowercase letters, digits and '-'"
    }
}
