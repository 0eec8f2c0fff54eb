import Aggregator
import Portable
import Serialization
import Snapshots
import TextSafety

/// `cost`'s answer as people read it (a table with a total line and the unpriced models under it), as
/// programs read it (JSON), and for spreadsheets (CSV). Model and account names are outside text: each
/// medium makes them safe (the table's cells, the JSON writer's escapes, `CSVTable.field`).
struct CostOutput {
    let question: SpendingQuestion
    let table: SpendingTable
    let problems: [RecordProblem]

    private var periodName: String { question.period.rawValue }
    private var dayText: (CivilTime) -> String {
        { String(cFormat: "%04ld-%02ld-%02ld", $0.year, $0.month, $0.day) }
    }

    func table(color: Bool) -> String {
        let headers =
            [periodName.uppercased()] + question.dimensions.map { $0.rawValue.uppercased() }
            + ["INPUT", "OUTPUT", "CACHE WRITE", "CACHE READ", "TOTAL", "COST"]
        var text = TextTable(headers: headers.map { $0 })
        for row in table.rows {
            text.rows.append(
                ([row.period] + question.dimensions.map { row.keys[$0].map { $0.isEmpty ? "-" : $0 } ?? "-" }
                    + figures(row.sums)).map { TextTable.Cell($0) })
        }
        text.rows.append(
            (["total"] + question.dimensions.map { _ in "" } + figures(table.totals)).map { TextTable.Cell($0) })
        var rendered = text.render(color: color)
        if !rendered.hasSuffix("\n") { rendered += "\n" }
        rendered += "\(dayText(question.since)) to \(dayText(question.until)) in \(question.zone.identifier)\n"
        if !table.unpriced.isEmpty {
            rendered +=
                "unpriced (tokens counted, no cost): "
                + table.unpriced.map { "\(SafeText.line($0.model)) (\(Self.tokens($0.tokens)))" }.joined(
                    separator: ", ")
                + "\n"
        }
        return rendered
    }

    private func figures(_ sums: SpendingSums) -> [String] {
        [
            Self.tokens(sums.inputTokens), Self.tokens(sums.outputTokens), Self.tokens(sums.cacheWriteTokens),
            Self.tokens(sums.cacheReadTokens), Self.tokens(sums.totalTokens),
            (sums.costUSD.map { String(cFormat: "$%.2f", $0) } ?? "-") + (sums.unpricedTokens > 0 ? " *" : ""),
        ]
    }

    /// Tokens with thousands separated: `1,234,567`.
    static func tokens(_ count: Int) -> String {
        let digits = Array(String(count))
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 && digit != "-" && digits[index - 1] != "-" { out += "," }
            out.append(digit)
        }
        return out
    }

    func json() -> String {
        var json = JSONWriter<Never>(capacity: 1024 + table.rows.count * 300)
        json.object { json in
            json.key("period")
            json.string(periodName)
            json.key("problems")
            json.array(problems) { json, problem in
                json.object { json in
                    json.key("file")
                    json.string(problem.file)
                    json.key("reason")
                    json.string(problem.reason)
                }
            }
            json.key("rows")
            json.array(table.rows) { json, row in
                var fields = Self.fields(of: row.sums) + [("period", .string(row.period))]
                for dimension in question.dimensions {
                    let value = row.keys[dimension] ?? ""
                    switch dimension {
                    case .provider: fields.append(("providerID", .string(value)))
                    case .model: fields.append(("model", .string(value)))
                    case .device: fields.append(("deviceID", .string(value)))
                    case .account: fields.append(("accountEmail", .string(value.isEmpty ? nil : value)))
                    }
                }
                Self.write(fields, into: &json)
            }
            json.key("since")
            json.string(dayText(question.since))
            json.key("totals")
            Self.write(Self.fields(of: table.totals), into: &json)
            json.key("tz")
            json.string(question.zone.identifier)
            json.key("unpriced")
            json.array(table.unpriced) { json, unpriced in
                json.object { json in
                    json.key("model")
                    json.string(unpriced.model)
                    json.key("tokens")
                    json.int(unpriced.tokens)
                }
            }
            json.key("until")
            json.string(dayText(question.until))
        }
        return String(decoding: json.data, as: UTF8.self) + "\n"
    }

    private enum Value {
        case int(Int)
        case double(Double?)
        case string(String?)
    }

    /// What every row and the totals carry.
    private static func fields(of sums: SpendingSums) -> [(key: String, value: Value)] {
        [
            ("cacheReadTokens", .int(sums.cacheReadTokens)), ("cacheWriteTokens", .int(sums.cacheWriteTokens)),
            ("costUSD", .double(sums.costUSD)), ("inputTokens", .int(sums.inputTokens)),
            ("outputTokens", .int(sums.outputTokens)), ("reasoningTokens", .int(sums.reasoningTokens)),
            ("totalTokens", .int(sums.totalTokens)), ("unpricedTokens", .int(sums.unpricedTokens)),
        ]
    }

    /// An object of `fields`, keys in byte order as every JSON aggctl writes.
    private static func write(_ fields: [(key: String, value: Value)], into json: inout JSONWriter<Never>) {
        json.object { json in
            for field in fields.sorted(by: { ByteOrder.precedes($0.key, $1.key) }) {
                json.key(text: field.key)
                switch field.value {
                case .int(let value): json.int(value)
                case .double(let value): json.double(value)
                case .string(let value): json.string(value)
                }
            }
        }
    }

    func csv() -> String {
        var rows = [
            ["period"] + question.dimensions.map { $0 == .provider ? "provider" : $0.rawValue }
                + [
                    "input_tokens", "output_tokens", "cache_write_tokens", "cache_read_tokens", "reasoning_tokens",
                    "total_tokens", "cost_usd", "unpriced_tokens",
                ]
        ]
        for row in table.rows {
            rows.append(
                [row.period] + question.dimensions.map { CSVTable.field(row.keys[$0] ?? "") }
                    + [
                        String(row.sums.inputTokens), String(row.sums.outputTokens), String(row.sums.cacheWriteTokens),
                        String(row.sums.cacheReadTokens), String(row.sums.reasoningTokens),
                        String(row.sums.totalTokens), CSVTable.number(row.sums.costUSD),
                        String(row.sums.unpricedTokens),
                    ])
        }
        return CSVTable.rows(rows)
    }
}
