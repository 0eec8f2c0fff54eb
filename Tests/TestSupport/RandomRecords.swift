import Foundation
import Snapshots

/// Random but valid records exercising every field of the schema, for property and differential tests.
public enum RandomRecords {
    static let providers = ["claude", "codex", "cursor", "gemini", "copilot"]
    static let texts = [
        "you@example.com", "Work@Acme.test ", "ünïcödé@例え.jp", "quote\"and\\backslash", "tab\tnewline\n",
        "emoji 😀", "", "Max 5x", "signed out", "<script>", "$(rm -rf ~)",
    ]

    public static func snapshot(_ index: Int, using generator: inout SeededGenerator) -> DeviceSnapshot {
        let generated = Date(timeIntervalSince1970: 1_796_040_000 - Double(Int.random(in: 0...7200, using: &generator)))
        return DeviceSnapshot(
            deviceID: DeviceID(rawValue: "dev-\(index)-\(Int.random(in: 0...9999, using: &generator))")!,
            deviceName: texts.filter { !$0.isEmpty }.randomElement(using: &generator)!,
            appVersion: Bool.random(using: &generator) ? "aggctl 0.1.0" : nil,
            generatedAt: generated,
            providers: (0..<Int.random(in: 1...4, using: &generator)).map { _ in
                provider(near: generated, using: &generator)
            })
    }

    static func provider(near date: Date, using g: inout SeededGenerator) -> ProviderUsage {
        func maybe<T>(_ make: (inout SeededGenerator) -> T) -> T? {
            Int.random(in: 0..<4, using: &g) == 0 ? nil : make(&g)
        }
        func percent(_ g: inout SeededGenerator) -> Double {
            [0, 100, 37.5, 0.1, 99.99999, 1e-7, 12_345.678_9, Double.random(in: 0...100, using: &g)].randomElement(
                using: &g)!
        }
        func moment(_ g: inout SeededGenerator) -> Date {
            // Whole seconds, so that a write and a read give back the identical Date.
            Date(
                timeIntervalSince1970: date.timeIntervalSince1970.rounded()
                    + Double(Int.random(in: -86_400...86_400, using: &g)))
        }
        func window(_ g: inout SeededGenerator) -> UsageWindow {
            // In range: a used percent past 100 is a record worth a problem note (`RecordFields`).
            UsageWindow(
                usedPercent: min(100, percent(&g)),
                windowMinutes: Bool.random(using: &g) ? [300, 10080].randomElement(using: &g)! : nil,
                resetsAt: Bool.random(using: &g) ? moment(&g) : nil)
        }
        // History as a publisher writes it: oldest first, one per moment, in range, none after the entry.
        let lastUpdated = moment(&g)
        func history(_ g: inout SeededGenerator) -> [UsageSample] {
            var at = lastUpdated.addingTimeInterval(-Double(Int.random(in: 0...86_400, using: &g)))
            var samples: [UsageSample] = []
            for _ in 0..<Int.random(in: 0...5, using: &g) {
                samples.append(UsageSample(at: at, usedPercent: min(100, percent(&g)), resetsAt: nil))
                at = at.addingTimeInterval(-Double(Int.random(in: 1...7200, using: &g)))
            }
            return samples.reversed()
        }
        return ProviderUsage(
            providerID: providers.randomElement(using: &g)!,
            accountEmail: maybe { texts.randomElement(using: &$0)! },
            plan: maybe { texts.randomElement(using: &$0)! },
            lastUpdated: lastUpdated,
            session: maybe(window), weekly: maybe(window),
            limits: maybe { g in
                (0..<Int.random(in: 1...3, using: &g)).map { index in
                    let figures = window(&g)
                    return Limit(
                        id: ["opus-weekly", "spark-session", "premium-monthly", "spend-monthly"][index],
                        label: texts.randomElement(using: &g)!, windowMinutes: figures.windowMinutes,
                        usedPercent: Bool.random(using: &g) ? figures.usedPercent : 100 + figures.usedPercent,
                        resetsAt: figures.resetsAt, used: Bool.random(using: &g) ? percent(&g) : nil,
                        limit: Bool.random(using: &g) ? 1000 : nil, unit: Bool.random(using: &g) ? "EUR" : nil,
                        binding: Bool.random(using: &g))
                }
            },
            tokens: maybe { g in
                TokenUsage(
                    today: Int.random(in: 0...Int.max, using: &g),
                    last30Days: Bool.random(using: &g) ? nil : Int.random(in: 0...5_000_000_000, using: &g),
                    daily: (0..<Int.random(in: 0...3, using: &g)).map { day in
                        DailyTokens(
                            date: "2026-11-\(10 + day)", tokens: Int.random(in: 0...4_000_000, using: &g),
                            costUSD: Bool.random(using: &g) ? percent(&g) : nil)
                    })
            },
            costUSD: maybe { g in CostUsage(today: percent(&g), last30Days: Bool.random(using: &g) ? nil : percent(&g))
            },
            weeklySamples: maybe(history),
            sessionSamples: maybe(history),
            error: maybe { texts.randomElement(using: &$0)! })
    }
}
