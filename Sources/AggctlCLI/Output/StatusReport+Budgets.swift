import Aggregator
import Portable

/// `status` beside the budgets the config file names (`budget = ...`): the month's spend of each, from
/// the ledger. Without budgets the document is the contract's four keys; with them, `budgets` joins them.
struct BudgetedStatus: Sendable {
    let result: MergeResult
    let budgets: [BudgetStanding]
}

extension StatusReport {
    static func status(_ result: MergeResult, budgets: [BudgetStanding], to json: inout StatusJSONWriter) {
        budgetedStatusDocument.write(BudgetedStatus(result: result, budgets: budgets), at: result.now, to: &json)
    }

    /// The status document's members, with `budgets` in its sorted place.
    static let budgetedStatusDocument = JSONShape<BudgetedStatus>(
        statusDocument.members.flatMap { member -> [JSONMember<BudgetedStatus>] in
            let own = JSONMember<BudgetedStatus>(key: member.key) { json, value, now in
                member.write(&json, value.result, now)
            }
            guard member.key.description == "accounts" else { return [own] }
            return [own, .array("budgets", budget) { $0.budgets }]
        })

    static let budget = JSONShape<BudgetStanding>([
        .double("amountUSD") { $0.budget.amountUSD },
        .string("month") { $0.month },
        .string("name") { $0.budget.name },
        .string("providerID") { $0.budget.providerID },
        .double("spentUSD") { $0.spentUSD },
        .int("unpricedTokens") { $0.unpricedTokens },
        .double("usedRatio") { $0.usedRatio },
    ])

    /// One line a budget, under the status table: `budget claude: $12.34 of $200.00 in 2026-12 (6%)`.
    static func budgetLines(_ standings: [BudgetStanding]) -> String {
        standings.map { standing in
            let unpriced = standing.unpricedTokens > 0 ? ", unpriced models not counted" : ""
            return "budget \(standing.budget.name): "
                + String(cFormat: "$%.2f of $%.2f", standing.spentUSD, standing.budget.amountUSD)
                + " in \(standing.month) (\(Int((standing.usedRatio * 100).rounded(.down)))%\(unpriced))\n"
        }.joined()
    }
}
