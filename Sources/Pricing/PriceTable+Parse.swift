import Portable

extension PriceTable {
    /// A price table's models from LiteLLM's shape (`{"model": {"input_cost_per_token": ..., ...}}`),
    /// read as hostile: an entry without both an input and an output rate is skipped, a value that is not
    /// a price (not a number, negative) is dropped and named.
    ///
    /// - Parameter origin: what the text is, for the problems' lines (`'prices.json'`).
    /// - Throws: `PriceTableError` when the text is not a JSON object.
    public static func parse(_ data: Data, origin: String) throws -> (models: [String: ModelPrice], problems: [String])
    {
        let read = try rates(data, origin: origin)
        return (read.rates.mapValues(price), read.problems)
    }

    /// The rates of each model in LiteLLM's shape that has both an input and an output rate, and a line
    /// for each value that is not a price: what `parse` prices and `prices update` keeps.
    static func rates(_ data: Data, origin: String) throws -> (rates: [String: [String: Double]], problems: [String]) {
        guard let entries = try? JSONDecoder().decode([String: Entry].self, from: data) else {
            throw PriceTableError(message: "\(origin) is not a price table: expected a JSON object of models")
        }
        return rates(of: entries, origin: origin)
    }

    static func rates(
        of entries: [String: Entry], origin: String
    ) -> (rates: [String: [String: Double]], problems: [String]) {
        var rates: [String: [String: Double]] = [:]
        var problems: [String] = []
        // LiteLLM's file opens with `sample_spec`, which documents the fields, not a model.
        for name in entries.keys.sorted() where name != "sample_spec" {
            let entry = entries[name]!
            for field in entry.refused.sorted() {
                problems.append("\(origin): \(name).\(field) is not a price per token")
            }
            guard entry.rates["input_cost_per_token"] != nil, entry.rates["output_cost_per_token"] != nil else {
                continue
            }
            rates[name] = entry.rates
        }
        return (rates, problems)
    }

    /// The fields of one model aggctl reads; everything else in an entry is ignored.
    static let fields: Set<String> = [
        "input_cost_per_token", "output_cost_per_token", "cache_creation_input_token_cost",
        "cache_creation_input_token_cost_above_1hr", "cache_read_input_token_cost",
        "input_cost_per_token_above_200k_tokens", "output_cost_per_token_above_200k_tokens",
        "cache_creation_input_token_cost_above_200k_tokens",
        "cache_creation_input_token_cost_above_1hr_above_200k_tokens",
        "cache_read_input_token_cost_above_200k_tokens",
    ]

    /// One model's entry: the rates it states, and the fields whose value was not a price.
    struct Entry: Decodable {
        var rates: [String: Double] = [:]
        var refused: [String] = []

        init(from decoder: any Decoder) throws {
            // An entry that is not an object (LiteLLM's file has none, a hostile one may) has no rates.
            guard let container = try? decoder.container(keyedBy: Key.self) else { return }
            for key in container.allKeys where PriceTable.fields.contains(key.stringValue) {
                if let value = try? container.decode(Double.self, forKey: key), value.isFinite, value >= 0 {
                    rates[key.stringValue] = value
                } else {
                    refused.append(key.stringValue)
                }
            }
        }

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

    }

    /// The price a model's rates make (both `input_cost_per_token` and `output_cost_per_token` present).
    static func price(_ rates: [String: Double]) -> ModelPrice {
        let input = rates["input_cost_per_token"] ?? 0
        let cacheWrite = rates["cache_creation_input_token_cost"] ?? input
        let base = ModelPrice.Rates(
            input: input, output: rates["output_cost_per_token"] ?? 0, cacheWrite: cacheWrite,
            // Anthropic charges an hour's cache write at twice the input rate (ccusage's rule too).
            cacheWriteHour: rates["cache_creation_input_token_cost_above_1hr"] ?? 2 * input,
            cacheRead: rates["cache_read_input_token_cost"] ?? input)
        // A long-prompt tier exists where the table states its input or output rate; a rate it leaves out
        // there is the short prompt's.
        let longInput = rates["input_cost_per_token_above_200k_tokens"]
        guard longInput != nil || rates["output_cost_per_token_above_200k_tokens"] != nil else {
            return ModelPrice(rates: base)
        }
        let long = ModelPrice.Rates(
            input: longInput ?? base.input, output: rates["output_cost_per_token_above_200k_tokens"] ?? base.output,
            cacheWrite: rates["cache_creation_input_token_cost_above_200k_tokens"] ?? base.cacheWrite,
            cacheWriteHour: rates["cache_creation_input_token_cost_above_1hr_above_200k_tokens"]
                ?? longInput.map { 2 * $0 } ?? base.cacheWriteHour,
            cacheRead: rates["cache_read_input_token_cost_above_200k_tokens"] ?? base.cacheRead)
        return ModelPrice(rates: base, longPrompt: long)
    }
}

/// A price table that cannot be used, as one line naming it.
public struct PriceTableError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
