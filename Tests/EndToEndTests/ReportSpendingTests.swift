import Foundation
import TestSupport
import Testing

/// The report's spending part as a person reads it: three machines' ledgers (the corpus's cases, their
/// dollars from other tools' tests and the providers' rates) as the daily cost by provider, each
/// provider's, model's and device's part, and the month against the config's budget, legible on a laptop
/// and on a phone in a real browser.
struct ReportSpendingTests {
    let machines = CorpusMachines("aggctl-report-spending")
    static let now = CorpusMachines.now
    var root: TemporaryDirectory { machines.root }

    func environment(_ machine: String) -> [String: String] { machines.environment(machine) }

    func expectedCost(_ corpusCase: String) throws -> Double { try CorpusMachines.expected(corpusCase).cost }

    func page() throws -> String {
        let cases = ["laptop": "cloud-model-ids", "desktop": "one-hour-cache-writes", "server": "long-prompt-sonnet"]
        for (machine, corpusCase) in cases {
            try machines.publish(
                machine, logs: try machines.claudeLogs(corpusCase, on: machine),
                extra: ["--device-name", "\(machine) box"])
        }
        try root.write("reader/config/aggctl/config", "budget = claude=2\n")
        let page = root.file("report.html")
        let run = try BinaryRun.run(
            ["report", "--store", root.file("store"), "--out", page, "--now", Self.now, "--tz", "Asia/Kolkata"],
            environment: environment("reader"))
        #expect(run.status == 0, "\(run.errors)")
        return page
    }

    @Test("the spending part: every machine's dollars, each provider's, model's and device's, the month's budget")
    func figures() throws {
        let html = try String(contentsOfFile: try page(), encoding: .utf8)
        let total = try ["cloud-model-ids", "one-hour-cache-writes", "long-prompt-sonnet"].map(expectedCost).reduce(
            0, +)
        #expect(html.contains("<section class=\"spending\"><h2>Spending</h2>"))
        #expect(html.contains(String(format: "in Asia/Kolkata: $%.2f", total)), "\(total)")
        #expect(html.contains("<td>server box</td><td>$1.44</td>"), "each device's part, by its name")
        #expect(
            html.contains("<td>claude-sonnet-4-5-20250929</td><td>$1.44</td>"),
            "the model mix, ids as the agent wrote them")
        #expect(html.contains("Unpriced (tokens counted, no cost): us.anthropic.claude-3-5-haiku-20241022-v1:0"))
        #expect(
            html.contains(
                String(format: "<strong>Budget Claude</strong>: <span class=\"level ok\">$%.2f of $2.00", total)))
        #expect(html.contains("aria-label=\"Cost per day by provider\""))
    }

    @Test(
        "the spending part on a laptop and on a phone: no request, no error, no sideways scroll, no text under 11 px",
        .enabled(if: ReportBrowserTests.runs, "\(ReportBrowserTests.reason)"))
    func inChromium() throws {
        let page = try page()
        for width in [1000, 390] {
            let loaded = try ReportBrowserTests.load(page, screenshot: root.file("spending-\(width).png"), width: width)
            #expect(loaded.requests.isEmpty && loaded.errors.isEmpty, "\(width): \(loaded.errors)")
            #expect(loaded.width <= Double(width), "\(width) px: the page scrolls sideways")
            #expect(
                loaded.smallestText.size >= 11,
                "\(width): '\(loaded.smallestText.text)' at \(loaded.smallestText.size) px")
        }
    }
}
