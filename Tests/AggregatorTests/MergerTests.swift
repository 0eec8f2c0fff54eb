import Aggregator
import Foundation
import Snapshots
import TestSupport
import Testing

struct MergerTests {
    let options = MergeOptions(now: Records.date("2026-11-30T12:00:00Z"))

    private func merge(_ snapshots: [DeviceSnapshot], problems: [RecordProblem] = []) -> MergeResult {
        Merger.merge(StoreContents(records: snapshots.map { Records.stored($0) }, problems: problems), options: options)
    }

    @Test("remaining percent is 100 minus used, clamped to 0...100")
    func remainingIsClamped() {
        let result = merge([
            Records.snapshot(
                "a", generatedAt: "2026-11-30T11:59:00Z",
                [
                    Records.entry("claude", at: "2026-11-30T11:59:00Z", sessionUsed: 37.5),
                    Records.entry("codex", at: "2026-11-30T11:59:00Z", sessionUsed: 130),
                    Records.entry("gemini", at: "2026-11-30T11:59:00Z", sessionUsed: -5),
                ])
        ])
        #expect(result.accounts.map(\.session?.remainingPercent) == [62.5, 0, 100])
        #expect(result.accounts.map(\.session?.usedPercent) == [37.5, 130, -5])
    }

    @Test("an entry without figures never hides one with figures: its error stands beside them")
    func errorOnlyNeverHidesWindows() {
        let older = Records.snapshot(
            "laptop", generatedAt: "2026-11-30T11:50:00Z",
            [Records.entry(at: "2026-11-30T11:50:00Z", sessionUsed: 100, tokensToday: 5)])
        let newer = Records.snapshot(
            "desktop", generatedAt: "2026-11-30T11:59:00Z",
            [Records.entry(at: "2026-11-30T11:59:00Z", sessionUsed: nil, tokensToday: 7, error: "signed out")])
        for order in [[older, newer], [newer, older]] {
            let account = merge(order).accounts[0]
            #expect(account.session?.usedPercent == 100)
            #expect(account.deviceID.rawValue == "laptop")
            #expect(account.lastUpdated == Records.date("2026-11-30T11:50:00Z"))
            #expect(account.error == "signed out")
            #expect(account.errorDeviceID?.rawValue == "desktop")
            // Ledgers still add up over both devices.
            #expect(account.tokens?.today == 12)
        }
        // Only when no entry has a window does the newest stand alone, with its own error.
        let alone = merge([
            Records.snapshot(
                "laptop", generatedAt: "2026-11-30T11:50:00Z",
                [Records.entry(at: "2026-11-30T11:50:00Z", sessionUsed: nil, error: "old")]), newer,
        ]).accounts[0]
        #expect(alone.deviceID.rawValue == "desktop" && alone.error == "signed out" && alone.errorDeviceID == nil)
        #expect(alone.session == nil)
        // A newer entry with windows and an error speaks for itself.
        let own = merge([
            older,
            Records.snapshot(
                "desktop", generatedAt: "2026-11-30T11:59:00Z",
                [Records.entry(at: "2026-11-30T11:59:00Z", sessionUsed: 20, error: "partial")]),
        ]).accounts[0]
        #expect(own.deviceID.rawValue == "desktop" && own.error == "partial" && own.errorDeviceID == nil)
    }

    @Test("the key is provider plus e-mail, trimmed and lowercased")
    func keyNormalisesEmail() {
        let result = merge([
            Records.snapshot(
                "a", generatedAt: "2026-11-30T11:59:00Z",
                [Records.entry(email: " You@Example.COM ", at: "2026-11-30T11:59:00Z")]),
            Records.snapshot(
                "b", generatedAt: "2026-11-30T11:58:00Z",
                [Records.entry(email: "you@example.com", at: "2026-11-30T11:58:00Z")]),
            Records.snapshot(
                "c", generatedAt: "2026-11-30T11:58:00Z",
                [Records.entry("codex", email: "you@example.com", at: "2026-11-30T11:58:00Z")]),
        ])
        #expect(result.accounts.count == 2)
        #expect(result.accounts[0].seenOn.map(\.rawValue) == ["a", "b"])
        #expect(result.accounts[0].accountEmail == "You@Example.COM")
    }

    @Test("e-mails written with other bytes are other accounts (a composed and a decomposed é), as in the reference")
    func keyIsBytes() {
        let result = merge([
            Records.snapshot(
                "a", generatedAt: "2026-11-30T11:59:00Z",
                [Records.entry(email: "\u{e9}@x.test", at: "2026-11-30T11:59:00Z")]),
            Records.snapshot(
                "b", generatedAt: "2026-11-30T11:58:00Z",
                [Records.entry(email: "e\u{301}@x.test", at: "2026-11-30T11:58:00Z")]),
            Records.snapshot(
                "c", generatedAt: "2026-11-30T11:58:00Z",
                [Records.entry(email: "\u{c9}@X.test", at: "2026-11-30T11:58:00Z")]),
        ])
        #expect(result.accounts.map { $0.seenOn.map(\.rawValue) } == [["b"], ["a", "c"]])
    }

    @Test("an entry with no e-mail is never merged with another device's entry")
    func noEmailStaysPerDevice() {
        let result = merge([
            Records.snapshot(
                "a", generatedAt: "2026-11-30T11:59:00Z", [Records.entry(email: nil, at: "2026-11-30T11:59:00Z")]),
            Records.snapshot(
                "b", generatedAt: "2026-11-30T11:59:00Z", [Records.entry(email: "  ", at: "2026-11-30T11:58:00Z")]),
            Records.snapshot(
                "c", generatedAt: "2026-11-30T11:59:00Z", [Records.entry(email: "x@y.z", at: "2026-11-30T11:58:00Z")]),
        ])
        #expect(result.accounts.map(\.accountEmail) == ["x@y.z", nil, nil])
        #expect(result.accounts.map(\.deviceID.rawValue) == ["c", "a", "b"])
        #expect(result.accounts.map(\.seenOn.count) == [1, 1, 1])
    }

    @Test("the entry with the newest lastUpdated wins")
    func newestWins() {
        let result = merge([
            Records.snapshot(
                "a", generatedAt: "2026-11-30T11:59:00Z", [Records.entry(at: "2026-11-30T11:00:00Z", sessionUsed: 10)]),
            Records.snapshot(
                "b", generatedAt: "2026-11-30T11:00:00Z", [Records.entry(at: "2026-11-30T11:30:00Z", sessionUsed: 70)]),
        ])
        #expect(result.accounts.map(\.deviceID.rawValue) == ["b"])
        #expect(result.accounts.first?.session?.usedPercent == 70)
    }

    @Test("a lastUpdated tie breaks on the newer generatedAt, then on the smaller deviceID")
    func tieBreaks() {
        let newerRecord = merge([
            Records.snapshot("a", generatedAt: "2026-11-30T11:50:00Z", [Records.entry(at: "2026-11-30T11:40:00Z")]),
            Records.snapshot("b", generatedAt: "2026-11-30T11:55:00Z", [Records.entry(at: "2026-11-30T11:40:00Z")]),
        ])
        #expect(newerRecord.accounts.first?.deviceID.rawValue == "b")
        let smallerID = merge([
            Records.snapshot("zeta", generatedAt: "2026-11-30T11:50:00Z", [Records.entry(at: "2026-11-30T11:40:00Z")]),
            Records.snapshot("alpha", generatedAt: "2026-11-30T11:50:00Z", [Records.entry(at: "2026-11-30T11:40:00Z")]),
        ])
        #expect(smallerID.accounts.first?.deviceID.rawValue == "alpha")
    }

    @Test("records of one device id, out of order (a store's read never gives them), count as one device")
    func oneDeviceInTwoRecords() {
        let result = merge([
            Records.snapshot("m", generatedAt: "2026-11-30T11:50:00Z", [Records.entry(at: "2026-11-30T11:40:00Z")]),
            Records.snapshot(
                "b", generatedAt: "2026-11-30T11:50:00Z", [Records.entry(at: "2026-11-30T11:30:00Z", tokensToday: 5)]),
            Records.snapshot(
                "m", generatedAt: "2026-11-30T11:50:00Z", [Records.entry(at: "2026-11-30T11:45:00Z", tokensToday: 7)]),
        ])
        #expect(result.accounts.map(\.deviceID.rawValue) == ["m"])
        #expect(result.accounts.first?.seenOn.map(\.rawValue) == ["b", "m"])
        #expect(result.accounts.first?.perDevice.map(\.tokensToday) == [5, 7])
        #expect(result.devices.map(\.deviceID.rawValue) == ["b", "m", "m"])
    }

    @Test("different accounts of the same provider stay side by side")
    func accountsStaySideBySide() {
        let result = merge([
            Records.snapshot(
                "a", generatedAt: "2026-11-30T11:59:00Z",
                [
                    Records.entry(email: "work@acme.test", at: "2026-11-30T11:59:00Z", sessionUsed: 90),
                    Records.entry(email: "you@example.com", at: "2026-11-30T11:59:00Z", sessionUsed: 10),
                ])
        ])
        #expect(result.accounts.map(\.accountEmail) == ["work@acme.test", "you@example.com"])
        #expect(result.accounts.map(\.session?.usedPercent) == [90, 10])
    }

    @Test("every merged entry says which device it came from and where the key was seen")
    func provenance() {
        let result = merge([
            Records.snapshot(
                "b", generatedAt: "2026-11-30T11:59:00Z", name: "laptop", [Records.entry(at: "2026-11-30T11:59:00Z")]),
            Records.snapshot("a", generatedAt: "2026-11-30T11:00:00Z", [Records.entry(at: "2026-11-30T11:00:00Z")]),
            Records.snapshot(
                "c", generatedAt: "2026-11-30T11:00:00Z", [Records.entry("codex", at: "2026-11-30T11:00:00Z")]),
        ])
        let claude = result.accounts[0]
        #expect(claude.deviceID.rawValue == "b")
        #expect(claude.deviceName == "laptop")
        #expect(claude.seenOn.map(\.rawValue) == ["a", "b"])
    }

    @Test("stale: an entry read longer ago than --stale-after is stale, and so is a quiet device")
    func staleness() {
        let result = merge([
            Records.snapshot(
                "old", generatedAt: "2026-11-30T10:59:59Z", [Records.entry("codex", at: "2026-11-30T10:59:00Z")]),
            Records.snapshot("edge", generatedAt: "2026-11-30T11:00:00Z", [Records.entry(at: "2026-11-30T11:00:00Z")]),
        ])
        #expect(result.accounts.map(\.stale) == [false, true])
        #expect(result.devices.map(\.stale) == [false, true])
        let strict = Merger.merge(
            StoreContents(records: [
                Records.stored(
                    Records.snapshot(
                        "edge", generatedAt: "2026-11-30T11:00:00Z", [Records.entry(at: "2026-11-30T11:00:00Z")]))
            ]),
            options: MergeOptions(now: options.now, staleAfter: 60))
        #expect(strict.accounts.map(\.stale) == [true])
    }

    @Test("clock skew: an entry dated past --max-skew is marked and never hides fresher figures")
    func clockSkewRanksLast() {
        let result = merge([
            Records.snapshot(
                "fast-clock", generatedAt: "2026-11-30T13:00:00Z",
                [Records.entry(at: "2026-11-30T13:00:00Z", sessionUsed: 100)]),
            Records.snapshot(
                "honest", generatedAt: "2026-11-30T11:59:00Z",
                [Records.entry(at: "2026-11-30T11:10:00Z", sessionUsed: 20)]),
        ])
        #expect(result.accounts.first?.deviceID.rawValue == "honest")
        #expect(result.accounts.first?.clockSkew == false)
        #expect(result.accounts.first?.seenOn.count == 2)

        let onlySkewed = merge([
            Records.snapshot(
                "fast-clock", generatedAt: "2026-11-30T13:00:00Z", [Records.entry(at: "2026-11-30T12:05:01Z")])
        ])
        #expect(onlySkewed.accounts.first?.clockSkew == true)
        let withinTolerance = merge([
            Records.snapshot(
                "bit-fast", generatedAt: "2026-11-30T12:05:00Z", [Records.entry(at: "2026-11-30T12:05:00Z")])
        ])
        #expect(withinTolerance.accounts.first?.clockSkew == false)
    }

    @Test("a record that cannot be read is reported and the rest merges")
    func problemsDoNotStopTheMerge() {
        let problem = RecordProblem(file: "broken.json", reason: "not valid JSON")
        let result = merge(
            [Records.snapshot("a", generatedAt: "2026-11-30T11:59:00Z", [Records.entry(at: "2026-11-30T11:59:00Z")])],
            problems: [problem])
        #expect(result.problems == [problem])
        #expect(result.accounts.count == 1)
    }

    @Test(
        "level: depleted at or below 0.0001 left, critical at 10, warning at 25, else ok",
        arguments: [
            (100.0, WindowLevel.depleted), (99.99995, .depleted), (99.9998, .critical), (90, .critical),
            (89.99, .warning), (75, .warning), (74.99, .ok), (0, .ok),
        ])
    func levels(used: Double, level: WindowLevel) {
        let result = merge([
            Records.snapshot(
                "a", generatedAt: "2026-11-30T11:59:00Z", [Records.entry(at: "2026-11-30T11:59:00Z", sessionUsed: used)]
            )
        ])
        #expect(result.accounts.first?.session?.level == level)
    }

    @Test("ledgers: tokens and cost add up over the devices that reported the key, per date, and per device")
    func ledgersAddUp() {
        let result = merge([
            Records.snapshot(
                "a", generatedAt: "2026-11-30T11:59:00Z",
                [
                    Records.entry(
                        at: "2026-11-30T11:59:00Z", tokensToday: 100, tokens30Days: 1000,
                        daily: [
                            DailyTokens(date: "2026-11-29", tokens: 40, costUSD: 1),
                            DailyTokens(date: "2026-11-30", tokens: 100, costUSD: 2),
                        ],
                        costToday: 2, cost30Days: 30)
                ]),
            Records.snapshot(
                "b", generatedAt: "2026-11-30T11:00:00Z",
                [
                    Records.entry(
                        at: "2026-11-30T11:00:00Z", tokensToday: 5, tokens30Days: nil,
                        daily: [DailyTokens(date: "2026-11-30", tokens: 5)], costToday: 0.5)
                ]),
            Records.snapshot("c", generatedAt: "2026-11-30T11:00:00Z", [Records.entry(at: "2026-11-30T10:00:00Z")]),
        ])
        let account = result.accounts[0]
        #expect(account.deviceID.rawValue == "a")
        #expect(account.tokens?.today == 105)
        #expect(account.tokens?.last30Days == 1000)
        #expect(
            account.dailyTokens == [
                DailyTokens(date: "2026-11-29", tokens: 40, costUSD: 1),
                DailyTokens(date: "2026-11-30", tokens: 105, costUSD: 2),
            ])
        #expect(account.costUSD?.today == 2.5)
        #expect(account.costUSD?.last30Days == 30)
        #expect(account.perDevice.map(\.deviceID.rawValue) == ["a", "b", "c"])
        #expect(account.perDevice.map(\.tokensToday) == [100, 5, nil])
        #expect(account.perDevice.map(\.costTodayUSD) == [2, 0.5, nil])
    }

    @Test("ledgers: no device reporting tokens gives no totals, and huge values saturate instead of crashing")
    func ledgerEdges() {
        let none = merge([
            Records.snapshot("a", generatedAt: "2026-11-30T11:59:00Z", [Records.entry(at: "2026-11-30T11:59:00Z")])
        ])
        #expect(none.accounts[0].tokens == nil)
        #expect(none.accounts[0].costUSD == nil)
        let huge = merge([
            Records.snapshot(
                "a", generatedAt: "2026-11-30T11:59:00Z",
                [Records.entry(at: "2026-11-30T11:59:00Z", tokensToday: Int.max)]),
            Records.snapshot(
                "b", generatedAt: "2026-11-30T11:59:00Z", [Records.entry(at: "2026-11-30T11:59:00Z", tokensToday: 10)]),
        ])
        #expect(huge.accounts[0].tokens?.today == Int.max)
    }

    @Test("accounts sort by provider, then e-mail with none last, then device; devices by id")
    func ordering() {
        let result = merge([
            Records.snapshot(
                "z", generatedAt: "2026-11-30T11:59:00Z",
                [
                    Records.entry("codex", email: nil, at: "2026-11-30T11:59:00Z"),
                    Records.entry("claude", email: nil, at: "2026-11-30T11:59:00Z"),
                    Records.entry("claude", email: "b@x", at: "2026-11-30T11:59:00Z"),
                ]),
            Records.snapshot(
                "y", generatedAt: "2026-11-30T11:59:00Z",
                [
                    Records.entry("claude", email: "a@x", at: "2026-11-30T11:59:00Z"),
                    Records.entry("claude", email: nil, at: "2026-11-30T11:59:00Z"),
                ]),
        ])
        #expect(
            result.accounts.map { "\($0.providerID) \($0.accountEmail ?? "-") \($0.deviceID)" } == [
                "claude a@x y", "claude b@x z", "claude - y", "claude - z", "codex - z",
            ])
        #expect(result.devices.map(\.deviceID.rawValue) == ["y", "z"])
    }

    @Test("shuffling the order of records never changes the merge")
    func orderIndependence() {
        var generator = SeededGenerator(seed: 42)
        let emails = ["a@x", "b@x", nil, "A@X "]
        let stamps = ["2026-11-30T11:00:00Z", "2026-11-30T11:30:00Z", "2026-11-30T12:30:00Z", "2026-11-30T11:30:00Z"]
        for _ in 0..<50 {
            let snapshots = (0..<12).map { index in
                Records.snapshot(
                    "dev-\(index)", generatedAt: stamps.randomElement(using: &generator)!,
                    (0..<3).map { _ in
                        Records.entry(
                            ["claude", "codex"].randomElement(using: &generator)!,
                            email: emails.randomElement(using: &generator)!,
                            at: stamps.randomElement(using: &generator)!,
                            sessionUsed: Double(Int.random(in: 0...100, using: &generator)),
                            tokensToday: Int.random(in: 0...1000, using: &generator))
                    })
            }
            let expected = merge(snapshots)
            for _ in 0..<5 {
                #expect(merge(snapshots.shuffled(using: &generator)) == expected)
            }
        }
    }
}
