/// Tokens this machine's agent logs recorded for one account.
///
/// These figures are a ledger of this device alone (other devices log other work), so the merge adds
/// them up across devices instead of picking one.
public struct TokenUsage: Codable, Sendable, Equatable, SchemaObject {
    public var today: Int?
    public var last30Days: Int?
    /// One entry per UTC calendar day, so that machines in different time zones add up.
    public var daily: [DailyTokens]?

    public init(today: Int? = nil, last30Days: Int? = nil, daily: [DailyTokens]? = nil) {
        self.today = today
        self.last30Days = last30Days
        self.daily = daily
    }

    static let schema = Schema<TokenUsage>([
        .field("today", \.today),
        .field("last30Days", \.last30Days),
        .history("daily", \.daily),
    ])

    static var blank: TokenUsage { TokenUsage() }
}

/// Tokens (and optionally cost) of one UTC calendar day.
public struct DailyTokens: Codable, Sendable, Equatable, SchemaObject {
    /// `YYYY-MM-DD`, a UTC calendar date.
    public var date: String
    public var tokens: Int
    public var costUSD: Double?

    public init(date: String, tokens: Int, costUSD: Double? = nil) {
        self.date = date
        self.tokens = tokens
        self.costUSD = costUSD
    }

    static let schema = Schema<DailyTokens>([
        .field("date", \.date),
        .field("tokens", \.tokens),
        .field("costUSD", \.costUSD),
    ])

    static var blank: DailyTokens { DailyTokens(date: "", tokens: 0) }
}

/// Money this machine's agent usage cost for one account, in US dollars; a per-device ledger like tokens.
public struct CostUsage: Codable, Sendable, Equatable, SchemaObject {
    public var today: Double?
    public var last30Days: Double?

    public init(today: Double? = nil, last30Days: Double? = nil) {
        self.today = today
        self.last30Days = last30Days
    }

    static let schema = Schema<CostUsage>([.field("today", \.today), .field("last30Days", \.last30Days)])
    static var blank: CostUsage { CostUsage() }
}
