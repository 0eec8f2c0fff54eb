/// How much of a window is left, in the four bands every view and alert uses.
public enum WindowLevel: String, Codable, Sendable, Comparable, CaseIterable {
    case ok, warning, critical, depleted

    /// At or below this remaining percent a window counts as used up. Not exactly 0 because providers
    /// report floating-point percentages such as 99.99999.
    public static let depletedThreshold = 0.0001

    /// The level of a window with `remainingPercent` left: depleted <= 0.0001, critical <= 10,
    /// warning <= 25, else ok.
    public init(remainingPercent: Double) {
        if remainingPercent <= WindowLevel.depletedThreshold {
            self = .depleted
        } else if remainingPercent <= 10 {
            self = .critical
        } else if remainingPercent <= 25 {
            self = .warning
        } else {
            self = .ok
        }
    }

    public static func < (lhs: WindowLevel, rhs: WindowLevel) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
