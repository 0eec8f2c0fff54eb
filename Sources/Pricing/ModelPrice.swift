import Portable

/// What one model costs, in US dollars per token, as LiteLLM's table states it (docs/prices.md).
public struct ModelPrice: Sendable, Equatable {
    /// The rates of one tier.
    public struct Rates: Sendable, Equatable {
        public var input: Double
        public var output: Double
        /// Writing to the prompt cache for 5 minutes; the input rate where the table has none.
        public var cacheWrite: Double
        /// Writing to the prompt cache for an hour; twice the input rate where the table has none.
        public var cacheWriteHour: Double
        /// Reading from the prompt cache; the input rate where the table has none.
        public var cacheRead: Double

        public init(input: Double, output: Double, cacheWrite: Double, cacheWriteHour: Double, cacheRead: Double) {
            self.input = input
            self.output = output
            self.cacheWrite = cacheWrite
            self.cacheWriteHour = cacheWriteHour
            self.cacheRead = cacheRead
        }
    }

    /// The rates of a request whose prompt is at most 200 000 tokens (every request where there is no
    /// other tier).
    public var rates: Rates
    /// The rates of a whole request whose prompt (input, cache writes and cache reads) is over 200 000
    /// tokens, where the provider charges more for it.
    public var longPrompt: Rates?

    public init(rates: Rates, longPrompt: Rates? = nil) {
        self.rates = rates
        self.longPrompt = longPrompt
    }

    /// Above this many prompt tokens a request is charged at `longPrompt` rates.
    public static let longPromptThreshold = 200_000

    /// The dollars `tokens` cost.
    public func cost(of tokens: TokenCounts) -> Double {
        let prompt = tokens.input.saturatingAdding(tokens.cacheWrite).saturatingAdding(tokens.cacheWriteHour)
            .saturatingAdding(tokens.cacheRead)
        let rates = prompt > Self.longPromptThreshold ? (longPrompt ?? self.rates) : self.rates
        return Double(tokens.input) * rates.input + Double(tokens.output) * rates.output
            + Double(tokens.cacheWrite) * rates.cacheWrite + Double(tokens.cacheWriteHour) * rates.cacheWriteHour
            + Double(tokens.cacheRead) * rates.cacheRead
    }
}

/// The tokens of one response, as a provider bills them.
public struct TokenCounts: Sendable, Equatable {
    /// Prompt tokens neither written to nor read from the cache.
    public var input: Int
    /// Output tokens, reasoning included (Codex's reasoning, Gemini's thoughts).
    public var output: Int
    /// Prompt tokens written to the cache for 5 minutes.
    public var cacheWrite: Int
    /// Prompt tokens written to the cache for an hour.
    public var cacheWriteHour: Int
    /// Prompt tokens read from the cache.
    public var cacheRead: Int

    public init(input: Int = 0, output: Int = 0, cacheWrite: Int = 0, cacheWriteHour: Int = 0, cacheRead: Int = 0) {
        self.input = input
        self.output = output
        self.cacheWrite = cacheWrite
        self.cacheWriteHour = cacheWriteHour
        self.cacheRead = cacheRead
    }
}
