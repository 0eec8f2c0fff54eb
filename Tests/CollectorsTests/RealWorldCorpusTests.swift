import Foundation
import Snapshots
import TestSupport
import Testing

@testable import Collectors

/// Each collector on the agents' shapes as other tools' test suites and the agents' own code state them
/// (`RealWorld/README.md`): the figure each case gives, and where that fact comes from.
struct RealWorldCorpusTests {
    static let root = Repository.path("Tests/CollectorsTests/RealWorld")
    static func cases(_ agent: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "\(root)/\(agent)")) ?? []).sorted()
    }
    static let now = Records.date("2026-11-30T12:00:00Z")

    func expected(_ agent: String, _ name: String) throws -> (tokens: Int, source: String, cost: Double?) {
        let data = try #require(FileManager.default.contents(atPath: "\(Self.root)/\(agent)/\(name)/expected.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let source = try #require(object["source"] as? String, "\(name) names its source")
        return (try #require(object["tokens"] as? Int), source, object["costUSD"] as? Double)
    }

    @Test("the corpus has its cases and the README names each one")
    func corpusComplete() throws {
        let readme = try String(contentsOfFile: "\(Self.root)/README.md", encoding: .utf8)
        let all = ["claude", "codex", "claude-api", "opencode"].flatMap { agent in
            Self.cases(agent).map { "\(agent)/\($0)" }
        }
        #expect(all.count >= 8)
        for name in all { #expect(readme.contains("`\(name)`"), "\(name) is missing from the README") }
    }

    @Test("Claude Code's logs as Claude Code writes them", arguments: cases("claude"))
    func claude(_ name: String) throws {
        let (tokens, source, cost) = try expected("claude", name)
        let collected = try ClaudeCollector(folders: ["\(Self.root)/claude/\(name)"]).gather(now: Self.now)
        let entry = collected.usage
        #expect(entry.tokens?.last30Days == tokens, "\(name) (\(source))")
        if let cost {
            #expect(abs((entry.costUSD?.last30Days ?? -1) - cost) < 1e-12, "\(name) (\(source))")
        }
        Self.expectLedgerAgrees(collected, name)
    }

    /// The ledger's rows add up to the record's figures: the same tokens, the same dollars, a model named
    /// on every row.
    static func expectLedgerAgrees(_ collected: Collected, _ name: String) {
        let rows = collected.ledger
        #expect(rows.map(\.totalTokens).reduce(0, +) == collected.usage.tokens?.last30Days, "\(name): ledger tokens")
        let cost = rows.compactMap(\.costUSD).reduce(0, +)
        #expect(abs(cost - (collected.usage.costUSD?.last30Days ?? 0)) < 1e-12, "\(name): ledger dollars")
        #expect(rows.allSatisfy { !$0.model.isEmpty }, "\(name): every row names its model")
        #expect(Set(rows.map(\.key)).count == rows.count, "\(name): one row per hour, account and model")
    }

    @Test("Claude's usage answers as CodexBar's tests assert them", arguments: cases("claude-api"))
    func claudeAPI(_ name: String) throws {
        let folder = "\(Self.root)/claude-api/\(name)"
        let data = try #require(FileManager.default.contents(atPath: folder + "/expected.json"))
        let expected = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let source = try #require(expected["source"] as? String, "\(name) names its source")
        let answer = try #require(JSONValue.read(contentsOf: folder + "/answer.json"))
        let known = ProviderUsage(providerID: "claude", lastUpdated: Self.now)
        let entry = try #require(ClaudeUsageEndpoint.figures(answer, onto: known), "\(name) (\(source))")
        #expect(entry.session?.usedPercent == expected["session"] as? Double, "\(name) (\(source))")
        #expect(entry.weekly?.usedPercent == expected["weekly"] as? Double, "\(name) (\(source))")
        let limits = expected["limits"] as? [[String: Any]] ?? []
        #expect(entry.limits?.map(\.id) ?? [] == limits.map { $0["id"] as? String ?? "" }, "\(name) (\(source))")
        for (limit, wanted) in zip(entry.limits ?? [], limits) {
            #expect(limit.label == wanted["label"] as? String, "\(name)")
            #expect(limit.usedPercent == wanted["usedPercent"] as? Double, "\(name)")
            let reset = (wanted["resetsAt"] as? String).map(Records.date)
            // The answers give microseconds; the whole second is what a record keeps and a person sees.
            #expect(limit.resetsAt.map { $0.timeIntervalSince1970.rounded(.down) } == reset?.timeIntervalSince1970)
        }
    }

    @Test("Codex's logs as Codex writes them", arguments: cases("codex"))
    func codex(_ name: String) throws {
        let (tokens, source, cost) = try expected("codex", name)
        let collected = try CodexCollector(home: "\(Self.root)/codex/\(name)").gather(now: Self.now)
        let entry = collected.usage
        #expect(entry.tokens?.last30Days == tokens, "\(name) (\(source))")
        if let cost {
            #expect(abs((entry.costUSD?.last30Days ?? -1) - cost) < 1e-12, "\(name) (\(source))")
        }
        Self.expectLedgerAgrees(collected, name)
    }

    @Test("OpenCode's database and message files as ccusage's adapter tests write them", arguments: cases("opencode"))
    func opencode(_ name: String) throws {
        let (tokens, source, cost) = try expected("opencode", name)
        // The case's folder, with its database written by Python's sqlite3 from `rows.json`.
        let folder = TemporaryDirectory("aggctl-opencode-\(name)")
        let original = "\(Self.root)/opencode/\(name)"
        if FileManager.default.fileExists(atPath: original + "/storage") {
            try FileManager.default.copyItem(atPath: original + "/storage", toPath: folder.file("storage"))
        }
        if let rows = FileManager.default.contents(atPath: original + "/rows.json") {
            let document = try #require(try JSONSerialization.jsonObject(with: rows) as? [String: Any])
            let database = folder.file(try #require(document["database"] as? String))
            let program = """
                import json, sqlite3, sys
                rows = json.load(open(sys.argv[1]))["rows"]
                c = sqlite3.connect(sys.argv[2])
                c.execute("CREATE TABLE message (id TEXT, session_id TEXT, data TEXT)")
                c.executemany("INSERT INTO message VALUES (?, ?, ?)", [(r["id"], r["session_id"], r["data"]) for r in rows])
                c.commit()
                """
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = ["-c", program, original + "/rows.json", database]
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
        }
        let collected = try OpenCodeCollector(folder: folder.path).gather(now: Records.date("2026-01-02T12:00:00Z"))
        #expect(collected.usage.tokens?.today == tokens, "\(name) (\(source))")
        #expect(collected.usage.providerID == "opencode")
        if let cost {
            #expect(abs((collected.usage.costUSD?.today ?? -1) - cost) < 1e-12, "\(name) (\(source))")
        } else {
            #expect(collected.usage.costUSD == nil, "\(name): unpriced, never $0")
        }
        Self.expectLedgerAgrees(collected, name)
    }

    @Test("a Codex file read in two runs, split inside its total-only events, counts as read at once")
    func codexTotalsAcrossRuns() throws {
        let folder = TemporaryDirectory("aggctl-codex-totals")
        let source =
            "\(Self.root)/codex/total-only-token-counts/sessions/2026/11/30/rollout-2026-11-30T09-00-00-a.jsonl"
        let lines = try String(contentsOfFile: source, encoding: .utf8).split(separator: "\n").map { $0 + "\n" }
        let path = "sessions/2026/11/30/rollout-2026-11-30T09-00-00-a.jsonl"
        for split in 1..<lines.count {
            let home = folder.file("home-\(split)")
            let state = folder.file("state-\(split)")
            try folder.write("home-\(split)/" + path, lines[..<split].joined())
            _ = try CodexCollector(home: home).collect(now: Self.now, stateFolder: state)
            try folder.write("home-\(split)/" + path, lines.joined())
            let entry = try CodexCollector(home: home).collect(now: Self.now, stateFolder: state)
            #expect(entry.tokens?.last30Days == 470, "split after line \(split)")
        }
    }

    @Test("a fork read in two runs, split at any line of its replay or its own work, counts as read at once")
    func codexForkAcrossRuns() throws {
        let folder = TemporaryDirectory("aggctl-codex-fork")
        let base = "\(Self.root)/codex/fork-replayed-at-fork-time/sessions/2026/11/30/"
        let names = try FileManager.default.contentsOfDirectory(atPath: base).sorted()
        let (parent, child) = (names[0], names[1])
        let lines = try String(contentsOfFile: base + child, encoding: .utf8).split(separator: "\n").map { $0 + "\n" }
        for split in 1..<lines.count {
            let home = folder.file("home-\(split)")
            let state = folder.file("state-\(split)")
            try folder.write(
                "home-\(split)/sessions/2026/11/30/" + parent,
                try String(contentsOfFile: base + parent, encoding: .utf8))
            try folder.write("home-\(split)/sessions/2026/11/30/" + child, lines[..<split].joined())
            _ = try CodexCollector(home: home).collect(now: Self.now, stateFolder: state)
            try folder.write("home-\(split)/sessions/2026/11/30/" + child, lines.joined())
            let entry = try CodexCollector(home: home).collect(now: Self.now, stateFolder: state)
            #expect(entry.tokens?.last30Days == 350, "split after line \(split)")
        }
    }
}
