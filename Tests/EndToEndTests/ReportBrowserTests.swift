import Foundation
import Snapshots
import TestSupport
import Testing

/// `report`'s page in a real browser: headless Chromium loads it through the DevTools protocol
/// (`Tests/Browser/load_page.py`), which tells every request the page made, every console error and
/// refused resource, where the browser put each chart point, and takes a screenshot.
struct ReportBrowserTests {
    static let chromium: String? = ["chromium", "chromium-browser", "google-chrome"].lazy.compactMap { name in
        ["/usr/bin", "/usr/local/bin", "/snap/bin"].map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }.first
    /// Under CI a missing browser is a failure, never a skip.
    static let runs = chromium != nil || ProcessInfo.processInfo.environment["CI"] == "true"
    static let reason = "needs Chromium (Debian package chromium; script/bootstrap installs it)"

    struct Loaded {
        var requests: [String]
        var errors: [String]
        var width: Double
        var charts: [[String: Any]]
        /// The smallest size text is drawn at, in CSS pixels, and that text.
        var smallestText: (size: Double, text: String)
    }

    static func load(_ page: String, screenshot: String, width: Int = 1000) throws -> Loaded {
        let browser = try #require(chromium, "missing under CI: \(reason)")
        // Chromium writes its profile (.cache, .config) under HOME: a folder of its own, gone after it.
        let home = TemporaryDirectory("aggctl-chromium-home")
        defer { withExtendedLifetime(home) {} }
        let run = try BinaryRun.run(
            [Repository.path("Tests/Browser/load_page.py"), browser, page, screenshot, String(width), "1400"],
            environment: ["PATH": "/usr/bin:/bin", "HOME": home.path], executable: "/usr/bin/python3",
            timeout: 90)
        try #require(run.status == 0, "load_page.py failed: \(run.errors)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        return Loaded(
            requests: document["requests"] as? [String] ?? ["?"], errors: document["errors"] as? [String] ?? ["?"],
            width: document["width"] as? Double ?? .infinity, charts: document["charts"] as? [[String: Any]] ?? [],
            smallestText: (
                (document["smallestText"] as? [String: Any])?["size"] as? Double ?? 0,
                (document["smallestText"] as? [String: Any])?["text"] as? String ?? ""
            ))
    }

    @Test(
        "the week's report loads with no console error and no request, and the browser draws the merged line",
        .enabled(if: runs, "\(reason)"))
    func weekInChromium() throws {
        let week = try SimulatedWeek.shared.get()
        let (page, run) = try week.report()
        #expect(run.status == 0)
        let screenshot = week.root.file("report.png")
        let loaded = try Self.load(page, screenshot: screenshot)
        #expect(loaded.requests.isEmpty)
        #expect(loaded.errors.isEmpty)
        let png = try Data(contentsOf: URL(fileURLWithPath: screenshot))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 10_000)

        let weekly = try #require(loaded.charts.first { $0["series"] as? String == "weekly" })
        #expect(weekly["key"] as? String == "claude:you@example.com")
        let start = try #require(weekly["start"] as? Double)
        let end = try #require(weekly["end"] as? Double)
        let points = (weekly["points"] as? [[Double]] ?? []).map { ($0[0], $0[1]) }
        HistoryEndToEndTests().expectMatches(points, start: start, end: end, tolerance: 0.01)
        let resetX = HistoryEndToEndTests.coordinates(SimulatedWeek.firstReset, 0, start: start, end: end).0
        let resets = weekly["resets"] as? [Double] ?? []
        #expect(resets.count == 1 && abs(resets[0] - resetX) < 0.01)
        // On a phone the page is one column that never scrolls sideways.
        let phone = try Self.load(page, screenshot: week.root.file("report-phone.png"), width: 390)
        #expect(phone.width <= 390)
        #expect(phone.errors.isEmpty)
        // Every text, the charts' axes included, readable at 100 % zoom on a laptop and on a phone.
        for (name, page) in [("laptop", loaded), ("phone", phone)] {
            #expect(
                page.smallestText.size >= 11, "\(name): '\(page.smallestText.text)' at \(page.smallestText.size) px")
        }
    }

    @Test("record text that tries markup stays text: nothing runs, nothing loads", .enabled(if: runs, "\(reason)"))
    func hostileRecord() throws {
        let root = TemporaryDirectory("aggctl-hostile-report")
        let hostile = #"<script>console.error('pwned')</script><img src="http://127.0.0.1:9/x.png">"#
        var entry = Records.entry(email: "x\(hostile)@example.com", at: "2026-11-30T11:00:00Z", sessionUsed: 40)
        entry.plan = hostile
        entry.weeklySamples = [UsageSample(at: Records.date("2026-11-30T10:00:00Z"), usedPercent: 5)]
        try root.write(
            "store/evil.json",
            Records.json(Records.snapshot("evil", generatedAt: "2026-11-30T11:00:00Z", name: hostile, [entry])))
        let page = root.file("report.html")
        let run = try BinaryRun.run(
            ["report", "--store", root.file("store"), "--out", page, "--now", "2026-11-30T12:00:00Z"],
            environment: ["HOME": root.file("home"), "XDG_STATE_HOME": root.file("state"), "PATH": "/usr/bin:/bin"])
        #expect(run.status == 0, "\(run.errors)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(!html.contains("<script") && !html.contains("<img"))
        #expect(html.contains("&lt;script&gt;"))
        let loaded = try Self.load(page, screenshot: root.file("report.png"))
        #expect(loaded.requests.isEmpty)
        #expect(loaded.errors.isEmpty)
    }

    @Test("the harness sees a request and a console error when a page makes them", .enabled(if: runs, "\(reason)"))
    func harnessCanFail() throws {
        let root = TemporaryDirectory("aggctl-harness")
        let page = try root.write(
            "bad.html",
            #"<!doctype html><img src="http://127.0.0.1:9/x.png"><script>console.error("boom")</script>"#)
        let loaded = try Self.load(page, screenshot: root.file("bad.png"))
        #expect(loaded.requests.contains("http://127.0.0.1:9/x.png"))
        #expect(loaded.errors.contains { $0.contains("boom") })
    }
}
