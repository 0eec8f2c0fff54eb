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

    @Test("the daily bars kept from the last rendering are reused only while their figures and days stand")
    func memoReusesWhatDidNotChange() throws {
        let memo = ReportMemo()
        let first = ReportPage(result: result(tokensOnLastDay: 5), days: 7, memo: memo).render()
        memo.finishRendering()
        #expect(first == ReportPage(result: result(tokensOnLastDay: 5), days: 7).render(), "the same page")
        #expect(memo.hits == 0 && memo.misses == 2)
        let again = ReportPage(result: result(tokensOnLastDay: 5), days: 7, memo: memo).render()
        memo.finishRendering()
        #expect(again == first && memo.hits == 2 && memo.misses == 2)
        // One device's figures changed: its account's bars are drawn anew, the other's reused.
        let changed = ReportPage(result: result(tokensOnLastDay: 6), days: 7, memo: memo).render()
        memo.finishRendering()
        #expect(changed == ReportPage(result: result(tokensOnLastDay: 6), days: 7).render())
        #expect(memo.hits == 3 && memo.misses == 3)
        // A new UTC day moves every bar: nothing is reused.
        let nextDay = ReportPage(
            result: result(tokensOnLastDay: 6, now: "2026-12-01T00:30:00Z"), days: 7, memo: memo
        ).render()
        #expect(memo.hits == 3 && memo.misses == 5)
        #expect(
            nextDay == ReportPage(result: result(tokensOnLastDay: 6, now: "2026-12-01T00:30:00Z"), days: 7).render())

        // Kept between runs: saved, loaded, reused; a damaged file is no memo.
        let folder = TemporaryDirectory("aggctl-report-memo")
        let path = folder.file("memo")
        memo.finishRendering()
        memo.save(to: path, readerVersion: "test")
        let loaded = ReportMemo.load(from: path, readerVersion: "test")
        _ = ReportPage(result: result(tokensOnLastDay: 6, now: "2026-12-01T00:30:00Z"), days: 7, memo: loaded).render()
        #expect(loaded.hits == 2 && loaded.misses == 0)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: path))
        let damaged = ReportMemo.load(from: path, readerVersion: "test")
        _ = ReportPage(result: result(tokensOnLastDay: 6, now: "2026-12-01T00:30:00Z"), days: 7, memo: damaged).render()
        #expect(damaged.hits == 0 && damaged.misses == 2)
        #expect(ReportMemo.load(from: path + ".none", readerVersion: "other").hits == 0)
    }

    @Test("a kept piece is given back only for the same source, byte for byte")
    func memoComparesTheSource() {
        let memo = ReportMemo()
        #expect(memo.piece(source: [1, 2, 3]) { "victim's bars" } == "victim's bars")
        // Another account's figures, one byte apart.
        #expect(memo.piece(source: [1, 2, 4]) { "its own bars" } == "its own bars")
        #expect(memo.piece(source: [1, 2, 4]) { "drawn again" } == "its own bars")
        #expect(memo.piece(source: [1, 2, 3]) { "drawn again" } == "victim's bars")
        #expect(memo.hits == 2 && memo.misses == 2)
    }
}
