import Aggregator
import Foundation
import Snapshots
import Stores
import TestSupport
import Testing

@testable import AggctlCLI

/// The report page's sums over a provider's accounts.
struct ReportPageTests {
    @Test("a provider's token totals stop at the largest count instead of wrapping to a negative one")
    func totalsSaturate() {
        let records = ["a@x", "b@x"].enumerated().map { index, email in
            Records.stored(
                Records.snapshot(
                    "dev-\(index)", generatedAt: "2026-11-30T11:30:00Z",
                    [
                        Records.entry(
                            email: email, at: "2026-11-30T11:30:00Z", tokensToday: Int.max, tokens30Days: Int.max)
                    ]
                ))
        }
        let result = Merger.merge(
            StoreContents(records: records), options: MergeOptions(now: Records.date("2026-11-30T12:00:00Z")))
        let html = ReportPage(result: result, days: 14).render()
        let expected = ReportPage.tokens(Double(Int.max))
        #expect(html.contains("<td>2</td><td>\(expected)</td><td>\(expected)</td>"))
        #expect(!html.contains("<td>-2</td>"))
    }
}
