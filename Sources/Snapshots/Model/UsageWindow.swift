import Portable

/// One usage limit window as the provider reports it: how much of it is used and when it resets.
package struct UsageWindow: Codable, Sendable, Equatable, SchemaObject {
    /// Percent used, 0...100 as the provider reports it. Not clamped here: the merge clamps what it shows.
    package var usedPercent: Double
    /// The window's length: 300 for a 5-hour session window, 10080 for a week.
    package var windowMinutes: Int?
    package var resetsAt: Date?

    package init(usedPercent: Double, windowMinutes: Int? = nil, resetsAt: Date? = nil) {
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
    package var remainingPercent: Double {
        min(100, max(0, 100 - usedPercent))
    }
}

/// A per-model weekly window, such as Claude's separate Opus limit.
package struct NamedWindow: Codable, Sendable, Equatable, SchemaObject {
    package var name: String
    package var window: UsageWindow

    package init(name: String, window: UsageWindow) {
        self.name = name
        self.window = window
    }

    static let schema = Schema<NamedWindow>([.field("name", \.name), .field("window", \.window)])
    static var blank: NamedWindow { NamedWindow(name: "", window: .blank) }
}

/// One point of weekly-usage history, for charts.
package struct UsageSample: Codable, Sendable, Equatable, SchemaObject {
    package var at: Date
    package var usedPercent: Double
    package var resetsAt: Date?

    package init(at: Date, usedPercent: Double, resetsAt: Date? = nil) {
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
