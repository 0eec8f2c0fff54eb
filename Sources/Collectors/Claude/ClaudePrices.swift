/// Anthropic's list prices in US dollars per million tokens, for costing Claude Code logs that carry no
/// `costUSD` of their own. Kept in the repository (LiteLLM's published values); update with new models.
public struct ClaudePrice: Sendable, Equatable {
    public var input: Double
    public var output: Double
    /// Writing to the prompt cache (5-minute tier).
    public var cacheWrite: Double
    public var cacheRead: Double

    public static let table: [String: ClaudePrice] = [
        "claude-opus-4-5": ClaudePrice(input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5),
        "claude-opus-4-1": ClaudePrice(input: 15, output: 75, cacheWrite: 18.75, cacheRead: 1.5),
        "claude-opus-4": ClaudePrice(input: 15, output: 75, cacheWrite: 18.75, cacheRead: 1.5),
        "claude-sonnet-4-5": ClaudePrice(input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3),
        "claude-sonnet-4": ClaudePrice(input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3),
        "claude-haiku-4-5": ClaudePrice(input: 1, output: 5, cacheWrite: 1.25, cacheRead: 0.1),
        "claude-3-5-haiku": ClaudePrice(input: 0.8, output: 4, cacheWrite: 1, cacheRead: 0.08),
    ]

    /// The price of `model` (`claude-sonnet-4-5-20250929`): the longest table name it starts with.
    public static func price(of model: String) -> ClaudePrice? {
        table.filter { model.hasPrefix($0.key) }.max { $0.key.count < $1.key.count }?.value
    }

    /// Dollars for one response's usage.
    public func cost(input: Int, output: Int, cacheWrite: Int, cacheRead: Int) -> Double {
        (Double(input) * self.input + Double(output) * self.output + Double(cacheWrite) * self.cacheWrite
            + Double(cacheRead) * self.cacheRead) / 1_000_000
    }
}
