import Foundation
import Serialization
import Snapshots
import TestSupport
import Testing

/// A simulated week (`--now`) of two machines publishing one Claude account alternately, every two
/// hours, each with its own state directory, and `check --warn-pace` after every publish. Made once per
/// test process and read by the tests below.
final class SimulatedWeek: Sendable {
    let root: TemporaryDirectory
    var store: String { root.file("store") }
    /// Monday 2026-11-23 00:00 UTC; the weekly window resets on Thursday and again a week later.
    static let start = Records.date("2026-11-23T00:00:00Z")
    static let firstReset = Records.date("2026-11-26T00:00:00Z")
    static let secondReset = Records.date("2026-12-03T00:00:00Z")
    static let steps = 84
    /// Ten minutes after the last publish.
    static let end = start.addingTimeInterval(Double(steps - 1) * 7200 + 600)
    /// Every line `check` printed.
    let eventLines: [String]
    var events: [[String: Any]] {
        eventLines.map { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] ?? [:] }
    }

    static func moment(_ step: Int) -> Date { start.addingTimeInterval(Double(step) * 7200) }

    static func machine(_ step: Int) -> String { step % 2 == 0 ? "laptop" : "desktop" }

    /// The weekly window at `step`: 40 % at the start, half a point an hour to the first reset, then a
    /// heavy week, a point an hour.
    static func weekly(_ step: Int) -> (used: Double, resetsAt: Date) {
        let hours = Double(step * 2)
        return hours < 72 ? (40 + hours / 2, firstReset) : (hours - 72, secondReset)
    }

    /// The session window at `step`: 5-hour windows from the start, 25 points an hour (runs out early).
    static func session(_ step: Int) -> (used: Double, resetsAt: Date) {
        let hours = step * 2
        return (Double(hours % 5) * 25, start.addingTimeInterval(Double((hours / 5 + 1) * 5) * 3600))
    }

    func environment(_ machine: String) -> [String: String] {
        Self.environment(machine, in: root)
    }

    static func environment(_ machine: String, in root: TemporaryDirectory) -> [String: String] {
        ["HOME": root.file("home"), "XDG_STATE_HOME": root.file("state-\(machine)"), "PATH": "/usr/bin:/bin"]
    }

    static let shared = Result { try SimulatedWeek() }

    private init() throws {
        root = try TemporaryDirectory.lastingThisProcess("aggctl-week")
        eventLines = try Self.simulate(in: root)
    }

    /// Publishes and checks the week; the lines `check` printed.
    private static func simulate(in root: TemporaryDirectory) throws -> [String] {
        let store = root.file("store")
        func environment(_ machine: String) -> [String: String] { Self.environment(machine, in: root) }
        var lines: [String] = []
        for step in 0..<steps {
            let at = RFC3339.format(moment(step))
            let machine = Self.machine(step)
            let (weeklyUsed, weeklyReset) = weekly(step)
            let (sessionUsed, sessionReset) = session(step)
            let input = try root.write(
                "input-\(machine).json",
                """
                {"providers": [{"providerID": "claude", "accountEmail": "you@example.com", "lastUpdated": "\(at)",
                  "session": {"usedPercent": \(sessionUsed), "windowMinutes": 300, "resetsAt": "\(RFC3339.format(sessionReset))"},
                  "weekly": {"usedPercent": \(weeklyUsed), "windowMinutes": 10080, "resetsAt": "\(RFC3339.format(weeklyReset))"}}]}
                """)
            let publish = try BinaryRun.run(
                ["publish", "--store", store, "--from", input, "--device-id", machine, "--now", at],
                environment: environment(machine))
            guard publish.status == 0 else { throw Failure(description: "publish at \(at): \(publish.errors)") }
            let check = try BinaryRun.run(
                [
                    "check", "--store", store, "--warn-pace", "--notify", "stdout", "--now",
                    RFC3339.format(moment(step).addingTimeInterval(60)),
                ], environment: environment("watcher"))
            guard check.status == 0 else { throw Failure(description: "check at \(at): \(check.errors)") }
            lines += check.output.split(separator: "\n").map(String.init)
        }
        return lines
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Every publish's weekly figure as a sample, with the reset drawn: what the merged weekly line is.
    static func expectedWeeklyLine() -> [(at: Date, used: Double)] {
        var points: [(Date, Double)] = []
        for step in 0..<steps {
            let (used, _) = weekly(step)
            if moment(step) == firstReset {
                points.append((firstReset.addingTimeInterval(-1), weekly(step - 1).used))
                points.append((firstReset, 0))
            }
            points.append((moment(step), used))
        }
        return points
    }

    /// Writes the report and returns its path.
    func report(days: Int = 7) throws -> (path: String, run: BinaryRun) {
        let path = root.file("report-\(days).html")
        let run = try BinaryRun.run(
            ["report", "--store", store, "--out", path, "--days", String(days), "--now", RFC3339.format(Self.end)],
            environment: environment("watcher"))
        return (path, run)
    }
}

struct HistoryEndToEndTests {
    /// `(x, y)` of a point in the report's line charts (`SVGChart`'s documented geometry).
    static func coordinates(_ at: Date, _ used: Double, start: Double, end: Double) -> (Double, Double) {
        (40 + (at.timeIntervalSince1970 - start) / (end - start) * 592, 8 + (100 - used) / 100 * 150)
    }

    /// The weekly polyline of the report: its time range and points, read from the page's text.
    static func weeklyLine(inPage html: String) throws -> (start: Double, end: Double, points: [(Double, Double)]) {
        let svg = try #require(html.range(of: #"data-series="weekly""#))
        let rest = html[svg.lowerBound...]
        func attribute(_ name: String) throws -> String {
            let start = try #require(rest.range(of: "\(name)=\""))
            return String(rest[start.upperBound...].prefix { $0 != "\"" })
        }
        let points = try attribute("points").split(separator: " ").map { pair in
            let parts = pair.split(separator: ",").compactMap { Double($0) }
            return (parts[0], parts[1])
        }
        return (try #require(Double(attribute("data-start"))), try #require(Double(attribute("data-end"))), points)
    }

    func expectMatches(_ points: [(Double, Double)], start: Double, end: Double, tolerance: Double) {
        let expected = SimulatedWeek.expectedWeeklyLine().map {
            Self.coordinates($0.at, $0.used, start: start, end: end)
        }
        #expect(points.count == expected.count)
        for (found, wanted) in zip(points, expected) {
            #expect(
                abs(found.0 - wanted.0) <= tolerance && abs(found.1 - wanted.1) <= tolerance, "\(found) vs \(wanted)")
        }
    }

    @Test("each machine's record carries its own history, kept across runs")
    func recordsCarryHistory() throws {
        let week = try SimulatedWeek.shared.get()
        for machine in ["laptop", "desktop"] {
            let data = try Data(contentsOf: URL(fileURLWithPath: week.store + "/\(machine).json"))
            let record = try RecordCodec.decode(data, fileName: "\(machine).json")
            let entry = record.snapshot.providers[0]
            #expect(entry.weeklySamples?.count == SimulatedWeek.steps / 2)
            #expect(entry.sessionSamples?.count == SimulatedWeek.steps / 2)
            #expect(record.notes.isEmpty)
        }
    }

    @Test("report draws one merged weekly line from both machines, the reset drawn as two extra points")
    func reportLine() throws {
        let week = try SimulatedWeek.shared.get()
        let (path, run) = try week.report()
        #expect(run.status == 0, "\(run.errors)")
        let html = try String(contentsOfFile: path, encoding: .utf8)
        let line = try Self.weeklyLine(inPage: html)
        #expect(line.end == SimulatedWeek.end.timeIntervalSince1970)
        #expect(line.start == line.end - 7 * 86_400)
        expectMatches(line.points, start: line.start, end: line.end, tolerance: 0.006)
        #expect(html.contains(#"<line class="reset""#))
        // Self-contained: nothing that could load anything.
        for needle in ["<script", "src=", "href=", "url(", "@import", "http://", "https://"] {
            #expect(!html.contains(needle), "the page holds \(needle)")
        }
    }

    @Test("status --json gives the weekly pace the formula gives at that moment")
    func statusPace() throws {
        let week = try SimulatedWeek.shared.get()
        let run = try BinaryRun.run(
            ["status", "--store", week.store, "--json", "--now", RFC3339.format(SimulatedWeek.end)],
            environment: week.environment("watcher"))
        let document = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        let account = try #require((document["accounts"] as? [[String: Any]])?.first)
        let weekly = try #require(account["weekly"] as? [String: Any])
        let pace = try #require(weekly["pace"] as? [String: Any])
        let used = SimulatedWeek.weekly(SimulatedWeek.steps - 1).used
        let untilReset = SimulatedWeek.secondReset.timeIntervalSince(SimulatedWeek.end)
        let elapsed = 10080 * 60 - untilReset
        let expected = elapsed / (10080 * 60) * 100
        #expect(abs((pace["expectedUsedPercent"] as? Double ?? 0) - expected) < 1e-6)
        #expect(abs((pace["deltaPercent"] as? Double ?? 0) - (used - expected)) < 1e-6)
        #expect(pace["stage"] as? String == "farAhead")
        #expect(abs((pace["etaSeconds"] as? Double ?? 0) - (100 - used) / (used / elapsed)) < 1e-3)
        #expect(pace["lastsUntilReset"] as? Bool == false)
        #expect(account["seenOn"] as? [String] == ["desktop", "laptop"])
    }

    @Test("status shows the weekly window's last days as a sparkline: blocks, ASCII for a dumb terminal, none in JSON")
    func sparkline() throws {
        let week = try SimulatedWeek.shared.get()
        func status(_ extra: [String], term: String?) throws -> String {
            var environment = week.environment("watcher")
            environment["TERM"] = term
            return try BinaryRun.run(
                ["status", "--store", week.store, "--now", RFC3339.format(SimulatedWeek.end)] + extra,
                environment: environment
            ).output
        }
        // Where the weekly window stood at the end of each of the last 14 half days (the newest publish in
        // each), drawn with 8 levels.
        let halfDay = 43_200.0
        let newest = Int(SimulatedWeek.end.timeIntervalSince1970 / halfDay)
        var levels: [Int?] = Array(repeating: nil, count: 14)
        for step in 0..<SimulatedWeek.steps {
            let slot = 13 - (newest - Int(SimulatedWeek.moment(step).timeIntervalSince1970 / halfDay))
            if (0..<14).contains(slot) { levels[slot] = min(7, Int(SimulatedWeek.weekly(step).used / 100 * 8)) }
        }
        if levels[13] == nil { levels[13] = levels[12] }
        func drawn(_ ramp: String) -> String {
            String(levels.map { $0.map { Array(ramp)[$0] } ?? " " })
        }
        let table = try status([], term: "xterm")
        #expect(table.contains("7 DAYS"))
        let row = try #require(table.split(separator: "\n").last)
        #expect(row.contains(drawn("▁▂▃▄▅▆▇█")), "\(row)")
        // Thursday's reset shows: high before it, lowest right after.
        #expect(drawn("▁▂▃▄▅▆▇█").contains("▇▁"))
        let dumb = try status([], term: "dumb")
        #expect(dumb.contains(drawn("_.-:=+*#")), "\(dumb)")
        #expect(!dumb.contains("▁"))
        let json = try status(["--json"], term: "xterm")
        #expect(!json.contains("▁") && !json.contains("DAYS"))
    }

    @Test("check --warn-pace fires once per window and reset")
    func paceEventsOnce() throws {
        let week = try SimulatedWeek.shared.get()
        let pace = week.events.filter { $0["kind"] as? String == "pace" }
        let weekly = pace.filter { ($0["title"] as? String)?.contains("weekly") == true }
        let session = pace.filter { ($0["title"] as? String)?.contains("session") == true }
        // The weekly window runs out early only in its heavy second week: once, for that reset.
        #expect(weekly.count == 1)
        #expect(weekly.first?["resetsAt"] as? String == RFC3339.format(SimulatedWeek.secondReset))
        // Every 5-hour window with a publish past its start runs out early: each is told once.
        let windows = Set(
            (0..<SimulatedWeek.steps).filter { ($0 * 2) % 5 != 0 }.map {
                RFC3339.format(SimulatedWeek.session($0).resetsAt)
            })
        #expect(session.count == windows.count)
        #expect(Set(session.compactMap { $0["resetsAt"] as? String }) == windows)
        #expect(Set(pace.compactMap { $0["id"] as? String }).count == pace.count)
        #expect(weekly.first?["title"] as? String == "Claude weekly will run out before reset")
    }

    @Test("hostile samples are reported and never break the chart: every point stays inside the plot")
    func hostileSamples() throws {
        let root = TemporaryDirectory("aggctl-hostile-history")
        let samples = [
            #"{"at": "2026-11-30T10:00:00Z", "usedPercent": 1e308}"#,
            #"{"at": "2026-11-30T09:00:00Z", "usedPercent": -40}"#,
            #"{"at": "2026-11-30T09:00:00Z", "usedPercent": 20}"#, #"{"at": "2099-01-01T00:00:00Z", "usedPercent": 5}"#,
            #"{"at": "1970-01-01T00:00:00Z", "usedPercent": 5}"#,
            #"{"at": "2026-11-30T10:30:00Z", "usedPercent": 30, "resetsAt": "2026-12-05T00:00:00Z"}"#,
            #"{"at": "2026-11-30T10:40:00Z", "usedPercent": 31, "resetsAt": "2026-11-01T00:00:00Z"}"#,
        ]
        try root.write(
            "store/evil.json",
            """
            {"deviceID": "evil", "generatedAt": "2026-11-30T11:00:00Z", "providers": [{"providerID": "claude",
             "accountEmail": "x@example.com", "lastUpdated": "2026-11-30T11:00:00Z",
             "weekly": {"usedPercent": 30, "windowMinutes": 10080, "resetsAt": "2026-12-05T00:00:00Z"},
             "weeklySamples": [\(samples.joined(separator: ","))]}]}
            """)
        let page = root.file("report.html")
        let environment = ["HOME": root.file("home"), "XDG_STATE_HOME": root.file("state"), "PATH": "/usr/bin:/bin"]
        let run = try BinaryRun.run(
            ["report", "--store", root.file("store"), "--out", page, "--now", "2026-11-30T12:00:00Z"],
            environment: environment)
        #expect(run.status == 0)
        for problem in [
            "out of order", "outside 0...100", "dated after", "out of range", "jumps backwards", "already sampled",
        ] {
            #expect(run.errors.contains(problem), "no problem line about \(problem)")
        }
        let line = try Self.weeklyLine(inPage: try String(contentsOfFile: page, encoding: .utf8))
        // 20 % at 09:00 (of the two at that moment, the higher), 100 % (clamped) at 10:00, 30 % at 10:30.
        let heights: [Double] = [128, 8, 113]
        #expect(line.points.map(\.1) == heights)
        #expect(line.points.allSatisfy { (40...632).contains($0.0) && (8...158).contains($0.1) })
        let status = try BinaryRun.run(
            ["status", "--store", root.file("store"), "--now", "2026-11-30T12:00:00Z"], environment: environment)
        #expect(status.status == 0)
    }

    @Test("a damaged history file is set aside with a warning, and the publish goes on")
    func damagedHistory() throws {
        let root = TemporaryDirectory("aggctl-history")
        let environment = ["HOME": root.file("home"), "XDG_STATE_HOME": root.file("state"), "PATH": "/usr/bin:/bin"]
        try root.write("state/aggctl/history.json", "{\"accounts\": [garbage")
        let input = try root.write(
            "input.json",
            #"{"providers": [{"providerID": "codex", "lastUpdated": "2026-11-30T12:00:00Z", "weekly": {"usedPercent": 5}}]}"#
        )
        let run = try BinaryRun.run(
            [
                "publish", "--store", root.file("store"), "--from", input, "--device-id", "box", "--now",
                "2026-11-30T12:00:00Z",
            ],
            environment: environment)
        #expect(run.status == 0)
        #expect(run.errors.contains("history '\(root.file("state/aggctl/history.json"))' could not be read"))
        #expect(run.errors.contains("set aside as"))
        let names = try FileManager.default.contentsOfDirectory(atPath: root.file("state/aggctl"))
        #expect(names.contains { $0.hasPrefix("history.json.corrupt-") })
        let record = try RecordCodec.decode(
            try Data(contentsOf: URL(fileURLWithPath: root.file("store/box.json"))), fileName: "box.json")
        #expect(record.snapshot.providers[0].weeklySamples?.count == 1)
    }
}
