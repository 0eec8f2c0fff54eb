import Aggregator
import Foundation
import Portable
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

    @Test("the page says when it was made in the reader's zone, with the zone named")
    func madeInTheReadersZone() throws {
        let zone = try #require(ZoneInfo.named("America/Los_Angeles"))
        let html = ReportPage(result: result(tokensOnLastDay: 5), days: 7, zone: zone).render()
        #expect(
            html.contains(
                #"as of <time datetime="2026-11-30T12:00:00Z">\#(zone.peopleText(Records.date("2026-11-30T12:00:00Z")))</time>"#
            ))
        #expect(zone.peopleText(Records.date("2026-11-30T12:00:00Z")).contains("04:00"))
    }

    func result(tokensOnLastDay: Int, now: String = "2026-11-30T12:00:00Z") -> MergeResult {
        let records = ["a@x", "b@x"].enumerated().map { index, email in
            Records.stored(
                Records.snapshot(
                    "dev-\(index)", generatedAt: "2026-11-30T11:30:00Z",
                    [
                        Records.entry(
                            email: email, at: "2026-11-30T11:30:00Z",
                            daily: [
                                DailyTokens(date: "2026-11-29", tokens: 1000, costUSD: 1.5),
                                DailyTokens(date: "2026-11-30", tokens: index == 0 ? tokensOnLastDay : 7),
                            ])
                    ]
                ))
        }
        return Merger.merge(StoreContents(records: records), options: MergeOptions(now: Records.date(now)))
    }

    @Test("a coordinate is written as Swift prints the number rounded to hundredths, digit for digit")
    func coordinatesAsSwiftPrintsThem() {
        // The way the page wrote them before it wrote bytes: Swift's shortest text of the rounded number.
        func printed(_ value: Double) -> String {
            let rounded = (value * 100).rounded() / 100
            if rounded.magnitude < 9e18, rounded == rounded.rounded() { return String(Int(rounded)) }
            return String(rounded)
        }
        var values: [Double] = [0, -0.0, 0.004, 0.005, -0.005, 0.1, 0.01, 99.995, 1e10, -1e10, 123_456_789.125, 1e300]
        values += [.infinity, -.infinity, .nan, .ulpOfOne, .leastNonzeroMagnitude, .greatestFiniteMagnitude]
        for hundredths in stride(from: -300_000, through: 3_000_000, by: 7) {
            values.append(Double(hundredths) / 100)
            values.append(Double(hundredths) / 100 + 0.004_9)
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200_000 {
            values.append(Double.random(in: -1e9...1e9, using: &generator))
            values.append(Double.random(in: 0...640, using: &generator))
        }
        let differing = values.filter { HTML.number($0) != printed($0) }
        #expect(differing.isEmpty, "\(differing.prefix(5).map { "\($0): \(HTML.number($0)) vs \(printed($0))" })")
    }
}
