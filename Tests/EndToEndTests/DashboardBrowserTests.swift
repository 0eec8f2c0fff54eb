import Foundation
import TestSupport
import Testing

/// `serve`'s dashboard in headless Chromium (`Tests/Browser/watch_dashboard.py`): the page draws the
/// figures, the script redraws them from `/api/status` by the same rules, and a publish shows up without
/// a reload, at a desktop's width and at a phone's 390 px.
struct DashboardBrowserTests {
    let root = TemporaryDirectory("aggctl-dashboard")
    var environment: [String: String] {
        ["HOME": root.file("home"), "XDG_STATE_HOME": root.file("state"), "PATH": "/usr/bin:/bin"]
    }
    static let now = "2026-11-30T12:00:00Z"

    func input(used: Double, name: String, provider: String = "claude") throws -> String {
        let path = root.file(name)
        try root.write(
            name,
            #"[{"providerID": "\#(provider)", "accountEmail": "you@example.com", "plan": "Max 5x", "lastUpdated": "2026-11-30T11:58:00Z", "session": {"usedPercent": \#(used), "windowMinutes": 300, "resetsAt": "2026-11-30T14:00:00Z"}, "weekly": {"usedPercent": 35, "windowMinutes": 10080, "resetsAt": "2026-12-03T09:00:00Z"}}]"#
        )
        return path
    }

    func publishCommand(_ input: String) -> String {
        "HOME='\(root.file("home"))' XDG_STATE_HOME='\(root.file("state"))' '\(BinaryRun.binary)' publish --store '\(root.file("store"))' "
            + "--device-id laptop --from '\(input)' --now \(Self.now)"
    }

    struct Watched {
        var served: [[String]]
        var drawn: [[String]]
        var changed: [[String]]
        var alerts: [String]
        var reloaded: Bool
        var requests: [String]
        var errors: [String]
        var width: Double
        var scrolled: [String]
    }

    func watch(width: Int, token: String? = nil, provider: String = "claude", screenshot: String) throws -> Watched {
        let browser = try #require(ReportBrowserTests.chromium, "missing under CI: \(ReportBrowserTests.reason)")
        let first = try input(used: 30, name: "first.json", provider: provider)
        let second = try input(used: 100, name: "second.json", provider: provider)
        #expect(try BinaryRun.run(["-c", publishCommand(first)], environment: environment, shell: true).status == 0)
        var arguments = ["--refresh", "1", "--now", Self.now]
        if let token {
            try root.write("token", token + "\n")
            chmod(root.file("token"), 0o600)
            arguments += ["--token-file", root.file("token")]
        }
        let server = try ServeEndToEndTests(root: root).serve(arguments)
        defer { kill(server.process.processIdentifier, SIGTERM) }
        let home = TemporaryDirectory("aggctl-chromium-home")
        let run = try BinaryRun.run(
            [
                Repository.path("Tests/Browser/watch_dashboard.py"), browser, server.origin + "/", screenshot,
                String(width), publishCommand(second),
            ] + (token.map { [$0] } ?? []),
            environment: ["PATH": "/usr/bin:/bin", "HOME": home.path], executable: "/usr/bin/python3", timeout: 120)
        try #require(run.status == 0, "watch_dashboard.py failed: \(run.errors)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        return Watched(
            served: document["served"] as? [[String]] ?? [], drawn: document["drawn"] as? [[String]] ?? [],
            changed: document["changed"] as? [[String]] ?? [], alerts: document["alerts"] as? [String] ?? [],
            reloaded: document["reloaded"] as? Bool ?? true, requests: document["requests"] as? [String] ?? ["?"],
            errors: document["errors"] as? [String] ?? ["?"], width: document["width"] as? Double ?? .infinity,
            scrolled: document["scrolled"] as? [String] ?? ["?"])
    }

    @Test(
        "the dashboard shows the figures and then a publish's, without a reload or a console error, desktop and phone",
        .enabled(if: ReportBrowserTests.runs, "\(ReportBrowserTests.reason)"),
        arguments: [1000, 390])
    func updatesInPlace(width: Int) throws {
        let screenshot = root.file("dashboard-\(width).png")
        let watched = try watch(width: width, screenshot: screenshot)
        let before = ["claude:you@example.com", "Session: 70% left · resets in 2h · 30% behind, lasts until reset"]
        #expect(watched.served.first?.prefix(2).map { $0 } == before, "\(watched.served)")
        #expect(watched.drawn == watched.served, "the script draws by the server's rules")
        #expect(watched.changed.first?[1] == "Session: used up · resets in 2h", "\(watched.changed)")
        #expect(watched.alerts == ["Claude you@example.com: Session used up · resets in 2h"])
        #expect(!watched.reloaded)
        #expect(watched.requests.isEmpty && watched.errors.isEmpty, "\(watched.requests) \(watched.errors)")
        #expect(watched.width <= Double(width), "no sideways scrolling at \(width) px")
        #expect(watched.scrolled.isEmpty, "no section scrolls sideways at \(width) px: \(watched.scrolled)")
        let png = try Data(contentsOf: URL(fileURLWithPath: screenshot))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }

    @Test(
        "with a token the page asks for it once, then updates as without",
        .enabled(if: ReportBrowserTests.runs, "\(ReportBrowserTests.reason)"))
    func withToken() throws {
        let watched = try watch(width: 390, token: "dashboard-token-0123456789", screenshot: root.file("token.png"))
        #expect(watched.served.isEmpty, "the shell holds no figure")
        #expect(watched.drawn.first?.first == "claude:you@example.com")
        #expect(watched.changed.first?[1] == "Session: used up · resets in 2h")
        #expect(!watched.reloaded && watched.errors.isEmpty, "\(watched.errors)")
    }

    @Test(
        "a provider named like an object's own member is drawn by its name, not the member",
        .enabled(if: ReportBrowserTests.runs, "\(ReportBrowserTests.reason)"))
    func providerNamedConstructor() throws {
        let watched = try watch(width: 1000, provider: "constructor", screenshot: root.file("constructor.png"))
        #expect(watched.alerts == ["Constructor you@example.com: Session used up · resets in 2h"], "\(watched.alerts)")
        #expect(watched.errors.isEmpty, "\(watched.errors)")
    }
}
