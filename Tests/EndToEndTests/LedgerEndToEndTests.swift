import Foundation
import TestSupport
import Testing

/// The ledger as a person meets it: three machines publish their agents' logs (the corpus's cases, each
/// citing where its figures come from), and `cost` on any machine adds up every machine's hours, in the
/// reader's own days, keeping hours whose logs are gone, and reading nothing of a sealed store without
/// its key.
struct LedgerEndToEndTests {
    let machines = CorpusMachines("aggctl-ledger")
    static let now = CorpusMachines.now
    static let binaries: [String] = [BinaryRun.binary] + (ReleaseBuild.available ? [ReleaseBuild.binary] : [])
    var root: TemporaryDirectory { machines.root }

    func environment(_ machine: String) -> [String: String] { machines.environment(machine) }
    func claudeLogs(_ corpusCase: String, on machine: String) throws -> String {
        try machines.claudeLogs(corpusCase, on: machine)
    }
    func expected(_ corpusCase: String) throws -> (tokens: Int, cost: Double) {
        try CorpusMachines.expected(corpusCase)
    }
    func publish(_ machine: String, logs: String, now: String = Self.now, extra: [String] = []) throws {
        try machines.publish(machine, logs: logs, now: now, extra: extra)
    }

    func cost(_ arguments: [String], binary: String = BinaryRun.binary) throws -> [String: Any] {
        let run = try BinaryRun.run(
            ["cost", "--store", root.file("store"), "--json", "--now", Self.now] + arguments,
            environment: environment("reader"), executable: binary)
        #expect(run.status == 0, "\(run.errors)")
        return try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as! [String: Any]
    }

    @Test("three machines' ledgers: cost --by device adds up to cost, at the corpus's tokens and prices")
    func threeMachines() throws {
        let cases = ["laptop": "cloud-model-ids", "desktop": "one-hour-cache-writes", "server": "long-prompt-sonnet"]
        for (machine, corpusCase) in cases { try publish(machine, logs: try claudeLogs(corpusCase, on: machine)) }
        let sums = try cases.values.map(expected)
        let whole = try cost(["--tz", "UTC"])
        let byDevice = try cost(["--tz", "UTC", "--by", "device"])
        let totals = whole["totals"] as! [String: Any]
        #expect(totals["totalTokens"] as? Int == sums.map(\.tokens).reduce(0, +))
        #expect(abs((totals["costUSD"] as? Double ?? 0) - sums.map(\.cost).reduce(0, +)) < 1e-9)
        let rows = byDevice["rows"] as! [[String: Any]]
        #expect(Set(rows.compactMap { $0["deviceID"] as? String }) == ["laptop", "desktop", "server"])
        #expect(rows.map { $0["totalTokens"] as! Int }.reduce(0, +) == totals["totalTokens"] as? Int)
        #expect(
            abs(rows.compactMap { $0["costUSD"] as? Double }.reduce(0, +) - (totals["costUSD"] as? Double ?? 0)) < 1e-12
        )
        // Claude 3.5 Haiku on Bedrock has no price in the table: named, its tokens apart, never $0.
        let unpriced = whole["unpriced"] as! [[String: Any]]
        #expect(unpriced.map { $0["model"] as? String } == ["us.anthropic.claude-3-5-haiku-20241022-v1:0"])
        #expect((totals["unpricedTokens"] as? Int ?? 0) > 0)
    }

    @Test("the same hours are the local days of Los Angeles and of Kolkata", arguments: binaries)
    func localDays(_ binary: String) throws {
        // The corpus's hour-long cache write, logged at 05:00 and at 23:30 UTC on 30 November.
        let line =
            try String(
                contentsOfFile: Repository.path(
                    "Tests/CollectorsTests/RealWorld/claude/one-hour-cache-writes/projects/-home-dev/s1.jsonl"),
                encoding: .utf8
            ).split(separator: "\n").first.map(String.init) ?? ""
        let timestamp = try #require(line.firstRange(of: #""timestamp":""#))
        let after = line[timestamp.upperBound...]
        let end = try #require(after.firstIndex(of: "\""))
        func at(_ time: String, id: String) -> String {
            String(line[..<timestamp.upperBound]) + time
                + String(after[end...]).replacing("\"id\":\"", with: "\"id\":\"\(id)")
        }
        try root.write(
            "laptop/claude/projects/p/s.jsonl",
            at("2026-11-30T05:00:00.000Z", id: "a") + "\n" + at("2026-11-30T23:30:00.000Z", id: "b") + "\n")
        try publish("laptop", logs: root.file("laptop/claude"), now: "2026-12-01T00:00:00Z")
        func days(_ zone: String) throws -> [String: Int] {
            let answer = try cost(["--tz", zone, "--since", "2026-11-29", "--until", "2026-12-01"], binary: binary)
            #expect(answer["tz"] as? String == zone)
            let rows = answer["rows"] as! [[String: Any]]
            return Dictionary(uniqueKeysWithValues: rows.map { ($0["period"] as! String, $0["totalTokens"] as! Int) })
        }
        let tokens = try expected("one-hour-cache-writes").tokens
        #expect(try days("America/Los_Angeles") == ["2026-11-29": tokens, "2026-11-30": tokens])
        #expect(try days("Asia/Kolkata") == ["2026-11-30": tokens, "2026-12-01": tokens])
        #expect(try days("UTC") == ["2026-11-30": 2 * tokens])
        // Without --tz, the machine's zone: TZ as the shipped binary reads it (its Foundation knows no zones).
        var kolkata = environment("reader")
        kolkata["TZ"] = "Asia/Kolkata"
        let local = try BinaryRun.run(
            [
                "cost", "--store", machines.store, "--json", "--now", Self.now, "--since", "2026-11-29", "--until",
                "2026-12-01",
            ],
            environment: kolkata, executable: binary)
        let document = try JSONSerialization.jsonObject(with: Data(local.output.utf8)) as! [String: Any]
        #expect(document["tz"] as? String == "Asia/Kolkata", "\(local.errors)")
        let rows = document["rows"] as! [[String: Any]]
        #expect(rows.map { $0["period"] as? String } == ["2026-11-30", "2026-12-01"])
    }

    @Test("a Claude log deleted after publishing: the month's ledger keeps its hours")
    func deletedLogKeepsItsHours() throws {
        let logs = try claudeLogs("cloud-model-ids", on: "laptop")
        try publish("laptop", logs: logs)
        let before = try cost(["--tz", "UTC"])["totals"] as! [String: Any]
        try FileManager.default.removeItem(atPath: logs + "/projects")
        try root.write("laptop/claude/projects/p/later.jsonl", "")
        try publish("laptop", logs: logs, now: "2026-11-30T13:00:00Z")
        let after = try cost(["--tz", "UTC"])["totals"] as! [String: Any]
        #expect(after["totalTokens"] as? Int == before["totalTokens"] as? Int)
        #expect(after["totalTokens"] as? Int == (try expected("cloud-model-ids").tokens))
    }

    @Test("a publish with nothing new leaves the ledger's months as they are; a log that grew rewrites its month")
    func nothingNewWritesNoMonth() throws {
        let logs = try claudeLogs("cloud-model-ids", on: "laptop")
        // Logs settled a while ago, as a schedule finds them between two sessions.
        let hourAgo = Date().addingTimeInterval(-3600)
        let log = try #require(
            FileManager.default.enumerator(atPath: logs)?.compactMap { $0 as? String }.first { $0.hasSuffix(".jsonl") })
        try FileManager.default.setAttributes([.modificationDate: hourAgo], ofItemAtPath: logs + "/" + log)
        let month = root.file("store/ledger/laptop/2026-11.json")
        for _ in 0..<3 { try publish("laptop", logs: logs) }
        try FileManager.default.setAttributes([.modificationDate: hourAgo], ofItemAtPath: month)
        try publish("laptop", logs: logs)
        let untouched = try FileManager.default.attributesOfItem(atPath: month)[.modificationDate] as? Date
        #expect(
            abs((untouched ?? Date()).timeIntervalSince(hourAgo)) < 1, "nothing new: the month is not written again")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: logs + "/" + log))
        handle.seekToEndOfFile()
        let line = try String(contentsOfFile: logs + "/" + log, encoding: .utf8).split(separator: "\n").first!
        handle.write(
            Data(
                (line.replacing("2026-11-30T10:00:00.000Z", with: "2026-11-30T11:00:00.000Z")
                    .replacing("\"id\":\"", with: "\"id\":\"later-") + "\n").utf8))
        try handle.close()
        try publish("laptop", logs: logs)
        let rewritten = try FileManager.default.attributesOfItem(atPath: month)[.modificationDate] as? Date
        #expect(abs((rewritten ?? hourAgo).timeIntervalSince(hourAgo)) > 60, "a grown log rewrites its month")
        let totals = try cost(["--tz", "UTC"])["totals"] as! [String: Any]
        #expect((totals["totalTokens"] as? Int ?? 0) > (try expected("cloud-model-ids").tokens))
    }

    @Test("the month's spend as Prometheus metrics: cost by account, tokens by model, each budget's share")
    func monthMetrics() throws {
        for (machine, corpusCase) in ["laptop": "cloud-model-ids", "desktop": "one-hour-cache-writes"] {
            try publish(machine, logs: try claudeLogs(corpusCase, on: machine))
        }
        let run = try BinaryRun.run(
            [
                "export", "--store", root.file("store"), "--format", "prometheus", "--now", Self.now, "--tz", "UTC",
                "--budget", "0.02", "--budget", "codex=5",
            ], environment: environment("reader"))
        #expect(run.status == 0, "\(run.errors)")
        let cost = try expected("cloud-model-ids").cost + (try expected("one-hour-cache-writes").cost)
        let line = try #require(
            run.output.split(separator: "\n").first { $0.hasPrefix("aggctl_cost_month_to_date_usd{") })
        #expect(line.hasPrefix(#"aggctl_cost_month_to_date_usd{provider="claude",account=""} "#))
        #expect(abs((Double(line.split(separator: " ").last ?? "") ?? 0) - cost) < 1e-12)
        #expect(
            run.output.contains(
                #"aggctl_tokens_month_to_date{provider="claude",account="",model="us.anthropic.claude-3-5-haiku-20241022-v1:0"} "#
            ))
        #expect(run.output.contains(#"aggctl_budget_used_ratio{budget="codex"} 0"#))
        #expect(run.output.contains(#"aggctl_budget_used_ratio{budget="all"} "#))
        if RequiredTool.available("promtool") || ProcessInfo.processInfo.environment["CI"] == "true" {
            let checked = try BinaryRun.run(
                ["check", "metrics"], environment: environment("reader"), input: Data(run.output.utf8),
                executable: "/usr/bin/promtool")
            #expect(checked.status == 0, "\(checked.output)\(checked.errors)")
        }
    }

    @Test("a month kept from an earlier cost is read again once its file changed; a damaged cache is ignored")
    func monthCache() throws {
        let month = root.file("store/ledger/laptop/2026-11.json")
        func settle() throws {
            try FileManager.default.setAttributes(
                [.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: month)
        }
        try publish("laptop", logs: try claudeLogs("one-hour-cache-writes", on: "laptop"))
        try settle()
        func tokens() throws -> Int? { (try cost(["--tz", "UTC"])["totals"] as! [String: Any])["totalTokens"] as? Int }
        let one = try expected("one-hour-cache-writes").tokens
        #expect(try tokens() == one)
        #expect(try tokens() == one, "from the cache")
        // Another machine's publish is another folder; this machine's next month rewrite is a new file.
        try FileManager.default.removeItem(atPath: root.file("laptop/claude"))
        try publish("laptop", logs: try claudeLogs("cloud-model-ids", on: "laptop"))
        try settle()
        #expect(try tokens() == one + (try expected("cloud-model-ids").tokens))
        let caches = try FileManager.default.contentsOfDirectory(atPath: root.file("reader/state/aggctl/cache"))
        let cache = try #require(caches.first { $0.hasSuffix(".months") })
        try Data("damaged".utf8).write(to: URL(fileURLWithPath: root.file("reader/state/aggctl/cache/" + cache)))
        #expect(try tokens() == one + (try expected("cloud-model-ids").tokens))
    }

    @Test("a month's temporary file that a killed publish left is swept after an hour; young ones stay")
    func leftoverMonthsSwept() throws {
        let logs = try claudeLogs("one-hour-cache-writes", on: "laptop")
        try publish("laptop", logs: logs)
        // The sweep's month is the real clock's, in UTC.
        let month = String(ISO8601DateFormatter().string(from: Date()).prefix(7))
        let folder = root.file("store/ledger/laptop/")
        let old = folder + ".\(month).json.1.aa.tmp"
        let young = folder + ".\(month).json.1.bb.tmp"
        try Data("half".utf8).write(to: URL(fileURLWithPath: old))
        try Data("half".utf8).write(to: URL(fileURLWithPath: young))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-7200)], ofItemAtPath: old)
        try publish("laptop", logs: logs)
        #expect(!FileManager.default.fileExists(atPath: old), "swept")
        #expect(FileManager.default.fileExists(atPath: young), "another publish may be writing it")
    }

    @Test("OpenCode's database where OpenCode keeps it on Linux: the record, the ledger and cost", arguments: binaries)
    func openCode(_ binary: String) throws {
        // ccusage's asserted row (adapter/opencode/loader.rs at 5816e640), in ~/.local/share/opencode/opencode.db,
        // written while a Claude corpus case sits beside it on the same machine.
        let data = try root.write("laptop/home/.local/share/opencode/.keep", "")
        let database = (data as NSString).deletingLastPathComponent + "/opencode.db"
        let row =
            #"{"providerID":"anthropic","modelID":"claude-sonnet-4-20250514","time":{"created":1767312000000},"tokens":{"input":120,"output":60,"cache":{"read":12,"write":24}},"cost":0.03}"#
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            "-c",
            "import sqlite3, sys\nc = sqlite3.connect(sys.argv[1])\nc.execute('CREATE TABLE message (id TEXT, session_id TEXT, data TEXT)')\nc.execute('INSERT INTO message VALUES (?, ?, ?)', ('db-msg-1', 'db-session-a', sys.argv[2]))\nc.commit()",
            database, row,
        ]
        try process.run()
        process.waitUntilExit()
        let run = try BinaryRun.run(
            [
                "publish", "--store", machines.store, "--device-id", "laptop", "--source", "opencode", "--now",
                "2026-01-02T12:00:00Z",
            ], environment: environment("laptop"), executable: binary)
        #expect(run.status == 0, "\(run.errors)")
        let month = try String(contentsOfFile: root.file("store/ledger/laptop/2026-01.json"), encoding: .utf8)
        #expect(month.contains(#""providerID":"opencode""#) && month.contains(#""model":"claude-sonnet-4-20250514""#))
        let answer = try BinaryRun.run(
            ["cost", "--store", machines.store, "--json", "--tz", "UTC", "--now", "2026-01-02T12:00:00Z"],
            environment: environment("reader"), executable: binary)
        let document = try JSONSerialization.jsonObject(with: Data(answer.output.utf8)) as! [String: Any]
        let rows = document["rows"] as! [[String: Any]]
        #expect(rows.map { $0["providerID"] as? String } == ["opencode"])
        #expect(rows.first?["totalTokens"] as? Int == 216)
        #expect(rows.first?["costUSD"] as? Double == 0.03)
        // Not installed here: one warning, and the rest publishes.
        let elsewhere = try BinaryRun.run(
            [
                "publish", "--store", machines.store, "--device-id", "desktop", "--source", "opencode", "--source",
                "claude:\(try claudeLogs("one-hour-cache-writes", on: "desktop"))", "--now", Self.now,
            ], environment: environment("desktop"), executable: binary)
        #expect(elsewhere.status == 0, "\(elsewhere.errors)")
        #expect(elsewhere.errors.contains("--source opencode: no OpenCode data in"), "\(elsewhere.errors)")
    }

    @Test("a sealed store's ledger opens with the key and reads as nothing without it")
    func sealedLedger() throws {
        let key = root.file("laptop/key")
        try FileManager.default.createDirectory(atPath: root.file("laptop"), withIntermediateDirectories: true)
        let made = try BinaryRun.run(["key", "new", "--out", key], environment: environment("laptop"))
        #expect(made.status == 0, "\(made.errors)")
        try publish("laptop", logs: try claudeLogs("one-hour-cache-writes", on: "laptop"), extra: ["--key-file", key])
        let stored = try String(
            contentsOfFile: root.file("store/ledger/laptop/2026-11.json"), encoding: .isoLatin1)
        #expect(!stored.contains("claude-opus"), "no model name in the clear")
        let opened = try cost(["--tz", "UTC", "--key-file", key])
        #expect(
            (opened["totals"] as! [String: Any])["totalTokens"] as? Int
                == (try expected("one-hour-cache-writes").tokens))
        let run = try BinaryRun.run(
            ["cost", "--store", root.file("store"), "--json", "--now", Self.now, "--tz", "UTC"],
            environment: environment("reader"))
        let closed = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as! [String: Any]
        #expect((closed["rows"] as! [Any]).isEmpty)
        let problems = closed["problems"] as! [[String: Any]]
        #expect(problems.contains { $0["file"] as? String == "ledger/laptop/2026-11.json" }, "\(problems)")
    }
}
