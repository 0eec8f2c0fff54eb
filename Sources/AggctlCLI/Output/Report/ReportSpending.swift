import Aggregator
import Portable
import Serialization
import Snapshots

/// What the report shows of spending, from the ledger (docs/cost.md): every machine's daily cost over the
/// last days stacked by provider, each provider's share, the model mix, each device's part and the month
/// so far against each budget, the days in the reader's zone.
struct ReportSpending: Sendable {
    /// The days the bars show (`YYYY-MM-DD`, oldest first), and the totals by day and provider.
    var days: [String]
    var byDayAndProvider: SpendingTable
    /// The same days' totals by provider, by model and by device.
    var byProvider: SpendingTable
    var byModel: SpendingTable
    var byDevice: SpendingTable
    var budgets: [BudgetStanding]
    var zone: ZoneInfo

    /// The last `count` local days up to `now`'s, from `ledgers`.
    init(ledgers: [Ledger], budgets: [BudgetStanding], zone: ZoneInfo, now: Date, count: Int) {
        let today = zone.civilTime(atUTC: Int64(now.timeIntervalSince1970.rounded(.down)))
        let until = CivilTime(year: today.year, month: today.month, day: today.day)
        let since = until.adding(days: -(count - 1))
        func question(_ period: SpendingQuestion.Period, _ dimensions: [SpendingQuestion.Dimension]) -> SpendingQuestion
        {
            SpendingQuestion(period: period, dimensions: dimensions, zone: zone, since: since, until: until)
        }
        days = (0..<count).map { question(.day, []).period(of: since.adding(days: $0)) }
        byDayAndProvider = SpendingTable(ledgers, question: question(.day, [.provider]))
        // By month: the span's one or two months are summed again by key (`merged`).
        byProvider = SpendingTable(ledgers, question: question(.month, [.provider]))
        byModel = SpendingTable(ledgers, question: question(.month, [.model]))
        byDevice = SpendingTable(ledgers, question: question(.month, [.device]))
        self.budgets = budgets
        self.zone = zone
    }

    /// `table`'s rows summed over periods, by the first dimension's value, most dollars first.
    static func merged(_ table: SpendingTable, _ dimension: SpendingQuestion.Dimension) -> [(
        name: String, sums: SpendingSums
    )] {
        var sums: [String: SpendingSums] = [:]
        for row in table.rows { sums[row.keys[dimension] ?? "", default: SpendingSums()].add(row.sums) }
        return sums.map { ($0.key, $0.value) }.sorted {
            let (a, b) = ($0.sums.costUSD ?? 0, $1.sums.costUSD ?? 0)
            return a != b ? a > b : ByteOrder.precedes($0.name, $1.name)
        }
    }
}

extension ReportPage {
    /// The spending section, when the page was given the ledger.
    func spendingSection(_ spending: ReportSpending, names: [DeviceID: String], into out: ByteOutput) {
        let total = spending.byProvider.totals
        out.string("<section class=\"spending\"><h2>Spending</h2><p class=\"meta\">Every machine's ledger, ")
        out.html(spending.days.first ?? "", limit: 10)
        out.string(" to ")
        out.html(spending.days.last ?? "", limit: 10)
        out.string(" in ")
        out.html(spending.zone.identifier, limit: 60)
        out.string(": ")
        out.string(total.costUSD.map(Self.dollars) ?? "no priced use")
        out.string(", ")
        out.string(Self.tokens(Double(total.totalTokens)))
        out.string(" tokens.</p>")
        let providers = ReportSpending.merged(spending.byProvider, .provider)
        // The daily bars: one stack a provider, in the providers' order of the table below.
        let index = Dictionary(uniqueKeysWithValues: spending.days.enumerated().map { ($1, $0) })
        let stacks = providers.map { provider -> [Double] in
            var values = [Double](repeating: 0, count: spending.days.count)
            for row in spending.byDayAndProvider.rows where row.keys[.provider] == provider.name {
                if let day = index[row.period] { values[day] += row.sums.costUSD ?? 0 }
            }
            return values
        }
        if stacks.contains(where: { $0.contains { $0 > 0 } }) {
            out.string(
                "<div class=\"ledger\"><figure><figcaption><strong>Cost per day</strong>, by provider</figcaption>")
            SVGChart.bars(
                days: spending.days, stacks: stacks, label: "Cost per day by provider", unit: Self.dollars, into: out)
            out.string("</figure><ul class=\"legend\">")
            for (position, provider) in providers.enumerated() {
                out.string("<li><span class=\"swatch d")
                out.integer(position % 8)
                out.string("\"></span>")
                out.html(ProviderNames.displayName(of: provider.name), limit: 40)
                out.string("</li>")
            }
            out.string("</ul></div>")
        }
        spendingTable("Provider", providers.map { (ProviderNames.displayName(of: $0.name), $0.sums) }, total, into: out)
        let models = ReportSpending.merged(spending.byModel, .model)
        spendingTable("Model", models.prefix(20).map { ($0.name, $0.sums) }, total, into: out)
        let devices = ReportSpending.merged(spending.byDevice, .device)
        spendingTable(
            "Device",
            devices.prefix(50).map { (names[DeviceID(alreadyValidated: $0.name)] ?? $0.name, $0.sums) }, total,
            into: out)
        if !spending.byProvider.unpriced.isEmpty {
            out.string("<p class=\"meta\">Unpriced (tokens counted, no cost): ")
            for (position, model) in spending.byProvider.unpriced.prefix(20).enumerated() {
                if position > 0 { out.string(", ") }
                out.html(model.model, limit: 80)
                out.string(" (")
                out.string(Self.tokens(Double(model.tokens)))
                out.string(")")
            }
            out.string("</p>")
        }
        for standing in spending.budgets {
            let percent = Int((standing.usedRatio * 100).rounded(.down))
            let level = percent >= 100 ? "depleted" : percent >= 80 ? "warning" : "ok"
            out.string("<p class=\"budget\"><strong>Budget ")
            out.html(standing.budget.providerID.map(ProviderNames.displayName(of:)) ?? "all providers", limit: 40)
            out.string("</strong>: <span class=\"level \(level)\">")
            out.string(Self.dollars(standing.spentUSD))
            out.string(" of ")
            out.string(Self.dollars(standing.budget.amountUSD))
            out.string(" (\(percent)%)</span> in \(standing.month)</p>")
        }
        out.string("</section>\n")
    }

    /// A table of dollars and tokens by `what`, each row's share of the dollars.
    private func spendingTable(
        _ what: String, _ rows: [(name: String, sums: SpendingSums)], _ total: SpendingSums, into out: ByteOutput
    ) {
        guard !rows.isEmpty else { return }
        out.string(
            "<table class=\"spend\"><thead><tr><th>\(what)</th><th>Cost</th><th>Share</th><th>Tokens</th></tr></thead><tbody>"
        )
        for row in rows {
            out.string("<tr><td>")
            out.html(row.name, limit: 80)
            out.string("</td><td>")
            out.string(row.sums.costUSD.map(Self.dollars) ?? "-")
            out.string("</td><td>")
            if let cost = row.sums.costUSD, let all = total.costUSD, all > 0 {
                out.string("\(Int((cost / all * 100).rounded()))%")
            } else {
                out.string("-")
            }
            out.string("</td><td>")
            out.string(Self.tokens(Double(row.sums.totalTokens)))
            out.string("</td></tr>")
        }
        out.string("</tbody></table>")
    }
}
