import Foundation
import TestSupport
import Testing

/// Budgets as a person meets them: machines publish their Claude Code logs (the corpus's cases, whose
/// dollars other tools' tests and the providers' rates give), and `check --budget` on any machine tells
/// once when the month's spend of every machine crosses 80 %, once at 100 %, with the same event on
/// every machine (so a shared channel hears it once), and `status` shows the month beside each budget.
struct BudgetEndToEndTests {
    let machines = CorpusMachines("aggctl-budget")
    static let now = CorpusMachines.now
    var root: TemporaryDirectory { machines.root }

    func environment(_ machine: String) -> [String: String] { machines.environment(machine) }

    func publish(_ machine: String, corpusCase: String) throws {
        try machines.publish(machine, corpusCase: corpusCase)
    }

    /// The events one `check --notify stdout` prints: (title, id).
    func check(_ machine: String, budgets: [String], now: String = Self.now) throws -> [(title: String, id: String)] {
        let run = try BinaryRun.run(
            ["check", "--store", root.file("store"), "--notify", "stdout", "--tz", "UTC", "--now", now]
                + budgets.flatMap { ["--budget", $0] }, environment: environment(machine))
        #expect(run.status == 0, "\(run.errors)")
        return try run.output.split(separator: "\n").map { line in
            let event = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            #expect(event["kind"] as? String == "budget" && event["window"] as? String == "budget")
            return (event["title"] as! String, event["id"] as! String)
        }
    }

    @Test("80% once, 100% once, the same event on every machine, and the next month arms them again")
    func crossings() throws {
        // $0.015 on the laptop (Bedrock Opus), against $0.0185: 81 %.
        try publish("laptop", corpusCase: "cloud-model-ids")
        let budget = ["0.0185"]
        let first = try check("laptop", budgets: budget)
        #expect(first.map(\.title) == ["All spend at 80% of the monthly budget"])
        #expect(try check("laptop", budgets: budget).isEmpty, "told once")
        let elsewhere = try check("desktop", budgets: budget)
        #expect(elsewhere.map(\.id) == first.map(\.id), "every machine makes the same event: a phone hears it once")
        // The server's long prompts ($1.4355) take the month past the budget.
        try publish("server", corpusCase: "long-prompt-sonnet")
        #expect(try check("laptop", budgets: budget).map(\.title) == ["All spend at 100% of the monthly budget"])
        #expect(try check("laptop", budgets: budget).isEmpty)
        // A budget of one provider counts that provider's spend only; Codex has none.
        #expect(try check("laptop", budgets: ["codex=1"]).isEmpty)
        // December: nothing spent yet; nothing fires.
        #expect(try check("laptop", budgets: budget, now: "2026-12-01T12:00:00Z").isEmpty)
    }

    @Test("three machines check with a phone on ntfy: the budget's 80% reaches it once, each machine's stdout hears it")
    func oncePerPerson() throws {
        try publish("laptop", corpusCase: "cloud-model-ids")
        let server = try LocalServer.sharedHTTPServer()
        let topic = "budget-\(UUID().uuidString.prefix(8))"
        for machine in ["laptop", "desktop", "box"] {
            let run = try BinaryRun.run(
                [
                    "check", "--store", machines.store, "--notify", "ntfy:" + server.origin + "/ntfy/" + topic,
                    "--notify", "stdout", "--budget", "0.0185", "--tz", "UTC", "--now", Self.now,
                ], environment: environment(machine),
                executable: ReleaseBuild.available ? ReleaseBuild.binary : BinaryRun.binary)
            #expect(run.status == 0, "\(machine): \(run.errors)")
            #expect(run.output.contains("All spend at 80% of the monthly budget"), "\(machine)'s own backend")
        }
        let heard = try requests(server).filter { $0.method == "POST" && $0.path.hasSuffix("/ntfy/" + topic) }
        #expect(heard.count == 1, "the phone hears it once: \(heard.count)")
    }

    @Test("status shows the month's spend beside each budget the config names; a bad budget is one clear line")
    func statusBesideBudgets() throws {
        try publish("laptop", corpusCase: "cloud-model-ids")
        try root.write("reader/config/aggctl/config", "budget = 30\nbudget = claude=0.02\n")
        let table = try BinaryRun.run(
            ["status", "--store", root.file("store"), "--now", Self.now], environment: environment("reader"))
        #expect(table.output.contains("budget all: $0.01 of $30.00 in 2026-11 (0%"), "\(table.output)")
        #expect(table.output.contains("budget claude: $0.01 of $0.02 in 2026-11 (75%"), "\(table.output)")
        let json = try BinaryRun.run(
            ["status", "--store", root.file("store"), "--json", "--now", Self.now], environment: environment("reader"))
        let document = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as! [String: Any]
        let budgets = document["budgets"] as! [[String: Any]]
        #expect(budgets.map { $0["name"] as? String } == ["all", "claude"])
        #expect(abs((budgets[1]["usedRatio"] as? Double ?? 0) - 0.75) < 1e-9)
        let bad = try BinaryRun.run(
            ["check", "--store", root.file("store"), "--budget", "claude=lots"], environment: environment("reader"))
        #expect(bad.status == 2)
        #expect(bad.errors.contains("--budget: 'claude=lots' is not a budget"), "\(bad.errors)")
    }
}
