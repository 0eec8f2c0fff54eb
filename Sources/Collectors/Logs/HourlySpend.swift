import Portable
import Serialization
import Snapshots

/// One response's tokens by kind, as the ledger counts them (docs/format.md, "The ledger"): `input`
/// neither written to nor read from a cache, `output` with any reasoning in it (`reasoning` says how much).
/// Plain integers only, so that a column of them is copied as bytes.
struct SpentTokens: Sendable, Equatable {
    var input = 0
    var output = 0
    var cacheWrite = 0
    var cacheRead = 0
    var reasoning = 0

    var total: Int {
        input.saturatingAdding(output).saturatingAdding(cacheWrite).saturatingAdding(cacheRead)
    }

    /// These parts made to add up to the total the agent stated: what the parts leave out is output
    /// (Codex's older totals counted reasoning beside output; a Gemini message with only its total is all
    /// output), so the record's total and the ledger's agree.
    func fitted(toTotal stated: Int) -> SpentTokens {
        var fitted = self
        if stated > total { fitted.output = fitted.output.saturatingAdding(stated - total) }
        return fitted
    }

    mutating func add(_ other: SpentTokens, sign: Int) {
        input = max(0, input.saturatingAdding(sign * other.input))
        output = max(0, output.saturatingAdding(sign * other.output))
        cacheWrite = max(0, cacheWrite.saturatingAdding(sign * other.cacheWrite))
        cacheRead = max(0, cacheRead.saturatingAdding(sign * other.cacheRead))
        reasoning = max(0, reasoning.saturatingAdding(sign * other.reasoning))
    }
}

/// What one agent's logs say was spent, per UTC hour and model: the ledger's rows and the record's days
/// both come from it, so they agree by construction.
///
/// Models are numbered as they come (`model(_:)`): a response carries a number, not a name, and hours
/// are summed under one 64-bit key.
struct HourlySpend: Sendable, Equatable {
    private(set) var models: [String] = []
    private var modelNumbers: [String: UInt32] = [:]
    /// Each `hour << 32 | model` summed, with its sums at the same place in `values`.
    private var keys: [UInt64] = []
    private var values: [Sums] = []
    private var slots: [UInt64: Int] = [:]
    /// The slot added to last: responses come in time order, most of them to the slot of the one before.
    private var last: (key: UInt64, slot: Int)?

    static func == (a: HourlySpend, b: HourlySpend) -> Bool { a.sums == b.sums && a.models == b.models }

    /// By `hour << 32 | model`: what two spends are compared by.
    private var sums: [UInt64: Sums] { Dictionary(uniqueKeysWithValues: zip(keys, values)) }

    struct Sums: Sendable, Equatable {
        var tokens = SpentTokens()
        /// Dollars of the priced responses; nil while none was priced.
        var cost: Double?
    }

    /// The number of `name` (empty names are "unknown", as the ledger writes them).
    mutating func model(_ name: String) -> UInt32 {
        let name = name.isEmpty ? "unknown" : name
        if let number = modelNumbers[name] { return number }
        let number = UInt32(models.count)
        models.append(name)
        modelNumbers[name] = number
        return number
    }

    /// Hours since 1970 of `date`, clamped as `RFC3339` clamps what it writes (a damaged state's time).
    static func hour(of date: Date) -> Int32 {
        let hours = (date.timeIntervalSince1970 / 3600).rounded(.down)
        return hours.isFinite ? Int32(min(max(hours, -2e8), 2e8)) : 0
    }

    /// Adds a response (`sign` 1) or takes it off again (-1); a NaN cost is unpriced and adds none.
    mutating func add(hour: Int32, model: UInt32, tokens: SpentTokens, cost: Double, sign: Int = 1) {
        let key = UInt64(UInt32(bitPattern: hour)) << 32 | UInt64(model)
        let slot: Int
        if let last, last.key == key {
            slot = last.slot
        } else if let found = slots[key] {
            slot = found
        } else {
            slot = keys.count
            keys.append(key)
            values.append(Sums())
            slots[key] = slot
        }
        last = (key, slot)
        values[slot].tokens.add(tokens, sign: sign)
        if !cost.isNaN { values[slot].cost = (values[slot].cost ?? 0) + Double(sign) * cost }
    }

    /// Each hour's model's sums, by hour then model name: the order sums are added in everywhere, so that
    /// two runs over the same responses agree to the last digit.
    func ordered() -> [(hour: Int32, model: String, sums: Sums)] {
        zip(keys, values).map { (Int32(bitPattern: UInt32($0 >> 32)), models[Int($0 & 0xFFFF_FFFF)], $1) }
            .sorted { $0.hour != $1.hour ? $0.hour < $1.hour : ByteOrder.precedes($0.model, $1.model) }
    }

    /// The ledger's rows of `providerID` (every hour with tokens); reasoning given where the agent
    /// reports it apart.
    func rows(providerID: String, accountEmail: String?, reportsReasoning: Bool) -> [LedgerRow] {
        ordered().compactMap { hour, model, sums in
            guard sums.tokens.total > 0 || (sums.cost ?? 0) > 0 else { return nil }
            return LedgerRow(
                at: Date(timeIntervalSince1970: Double(hour) * 3600), providerID: providerID,
                accountEmail: accountEmail, model: model, inputTokens: sums.tokens.input,
                outputTokens: sums.tokens.output, cacheWriteTokens: sums.tokens.cacheWrite,
                cacheReadTokens: sums.tokens.cacheRead, reasoningTokens: reportsReasoning ? sums.tokens.reasoning : nil,
                costUSD: sums.cost)
        }
    }

    /// The record's `tokens` and `costUSD`: today and the last 30 UTC days up to `now`'s, from the hours.
    func recordFigures(now: Date) -> (tokens: TokenUsage, cost: CostUsage?) {
        let today = RFC3339.utcDay(now)
        let firstDay = RFC3339.utcDay(now.addingTimeInterval(-29 * 86_400))
        var days: [(day: String, tokens: Int, cost: Double?)] = []
        // Hours come in order: a day's name is made once, when its first hour comes (not per hour and model).
        var lastDay: (number: Int32, name: String)?
        for (hour, _, sums) in ordered() {
            let number = hour >= 0 ? hour / 24 : (hour - 23) / 24
            let day: String
            if let lastDay, lastDay.number == number {
                day = lastDay.name
            } else {
                day = RFC3339.utcDay(Date(timeIntervalSince1970: Double(hour) * 3600))
                lastDay = (number, day)
            }
            guard day >= firstDay, day <= today else { continue }
            if days.last?.day != day { days.append((day, 0, nil)) }
            days[days.count - 1].tokens.saturatingAdd(sums.tokens.total)
            if let cost = sums.cost { days[days.count - 1].cost = (days[days.count - 1].cost ?? 0) + cost }
        }
        days.removeAll { $0.tokens == 0 && $0.cost == nil }
        let tokens = TokenUsage(
            today: days.last { $0.day == today }?.tokens ?? 0, last30Days: days.map(\.tokens).saturatingSum(),
            daily: days.map { DailyTokens(date: $0.day, tokens: $0.tokens, costUSD: $0.cost) })
        let priced = days.compactMap(\.cost)
        let cost =
            priced.isEmpty
            ? nil : CostUsage(today: days.last { $0.day == today }?.cost ?? 0, last30Days: priced.reduce(0, +))
        return (tokens, cost)
    }

    func encode(into out: inout BinaryWriter) {
        out.u32(UInt32(models.count))
        for model in models { out.string(model) }
        out.u32(UInt32(keys.count))
        for (key, sums) in zip(keys, values) {
            out.u64(key)
            out.int(sums.tokens.input)
            out.int(sums.tokens.output)
            out.int(sums.tokens.cacheWrite)
            out.int(sums.tokens.cacheRead)
            out.int(sums.tokens.reasoning)
            out.optionalDouble(sums.cost)
        }
    }

    static func decode(from input: inout BinaryReader) throws -> Self {
        var spend = Self()
        for number in 0..<(try input.count()) {
            // Each name once: a repeated one would number the sums' models wrongly.
            guard spend.model(try input.string()) == UInt32(number) else { throw BinaryReader.Corrupt() }
        }
        for _ in 0..<(try input.count()) {
            let key = try input.u64()
            guard Int(key & 0xFFFF_FFFF) < spend.models.count else { throw BinaryReader.Corrupt() }
            let tokens = SpentTokens(
                input: try input.int(), output: try input.int(), cacheWrite: try input.int(),
                cacheRead: try input.int(), reasoning: try input.int())
            guard spend.slots[key] == nil else { throw BinaryReader.Corrupt() }
            spend.slots[key] = spend.keys.count
            spend.keys.append(key)
            spend.values.append(Sums(tokens: tokens, cost: try input.optionalDouble()))
        }
        return spend
    }
}
