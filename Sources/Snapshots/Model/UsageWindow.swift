import Portable

/// One usage limit window as the provider reports it: how much of it is used and when it resets.
public struct UsageWindow: Codable, Sendable, Equatable, SchemaObject {
    /// Percent used, 0...100 as the provider reports it. Not clamped here: the merge clamps what it shows.
    public var usedPercent: Double
    /// The window's length: 300 for a 5-hour session window, 10080 for a week.
    public var windowMinutes: Int?
    public var resetsAt: Date?

    public init(usedPercent: Double, windowMinutes: Int? = nil, resetsAt: Date? = nil) {
        self.usedPercent = usedPercent
        self.windowMinutes = windowMinutes
        self.resetsAt = resetsAt
    }

    static let schema = Schema<UsageWindow>([
        .field("usedPercent", \.usedPercent),
        .field("windowMinutes", \.windowMinutes),
        .field("resetsAt", \.resetsAt),
    ])

    static var blank: UsageWindow { UsageWindow(usedPercent: 0) }

    /// `100 - usedPercent`, clamped to 0...100.
    public var remainingPercent: Double {
        min(100, max(0, 100 - usedPercent))
    }
}

/// A per-model weekly window, such as Claude's separate Opus limit.
public struct NamedWindow: Codable, Sendable, Equatable, SchemaObject {
    public var name: String
    public var window: UsageWindow

    public init(name: String, window: UsageWindow) {
        self.name = name
        self.window = window
    }

    static let schema = Schema<NamedWindow>([.field("name", \.name), .field("window", \.window)])
    static var blank: NamedWindow { NamedWindow(name: "", window: .blank) }
}

/// One point of weekly-usage history, for charts.
public struct UsageSample: Codable, Sendable, Equatable, SchemaObject {
    public var at: Date
    public var usedPercent: Double
    public var resetsAt: Date?

    public init(at: Date, usedPercent: Double, resetsAt: Date? = nil) {
        self.at = at
        self.usedPercent = usedPercent
        self.resetsAt = resetsAt
    }

    static let schema = Schema<UsageSample>([
        .field("at", \.at),
        .field("usedPercent", \.usedPercent),
        .field("resetsAt", \.resetsAt),
    ])

    static var blank: UsageSample { UsageSample(at: Date(timeIntervalSince1970: 0), usedPercent: 0) }
}
