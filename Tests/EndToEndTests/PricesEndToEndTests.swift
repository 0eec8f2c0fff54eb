import Foundation
import TestSupport
import Testing

/// `aggctl prices` through the binary: what a model costs and where the figure came from, a model the
/// table does not name, a newer table kept by `update` from a server on 127.0.0.1, a user's overrides.
struct PricesEndToEndTests {
    let root = TemporaryDirectory("aggctl-prices")
    var environment: [String: String] {
        [
            "HOME": root.file("home"), "XDG_STATE_HOME": root.file("state"), "XDG_CONFIG_HOME": root.file("config"),
            "PATH": "/usr/bin:/bin",
        ]
    }

    func prices(_ arguments: [String]) throws -> BinaryRun {
        try BinaryRun.run(["prices"] + arguments, environment: environment)
    }

    /// The figures of a `show MODEL` table's row named `row`.
    func figures(_ output: String, row: String) -> [String] {
        let line = output.split(separator: "\n").first { $0.hasPrefix(row) } ?? ""
        return line.dropFirst(row.count).split(separator: " ").map(String.init)
    }

    @Test("show: a model's rates per million tokens and their source; a Bedrock id as its model; unpriced is exit 1")
    func show() throws {
        // Anthropic's pricing page: Opus 4.6 $5 input, $25 output, $6.25 and $10 cache writes, $0.50 reads.
        let opus = try prices(["show", "claude-opus-4-6"])
        #expect(opus.status == 0, "\(opus.errors)")
        #expect(figures(opus.output, row: "up to 200k") == ["5", "25", "6.25", "10", "0.5"])
        #expect(opus.output.contains("bundled: litellm"))
        // Sonnet 4.5 on Bedrock: its long-context rates too ($6 and $22.50 over 200K).
        let bedrock = try prices(["show", "us.anthropic.claude-sonnet-4-5-20250929-v1:0"])
        #expect(figures(bedrock.output, row: "over 200k") == ["6", "22.5", "7.5", "12", "0.6"])
        let unknown = try prices(["show", "claude-opus-4"])
        #expect(unknown.status == 1)
        #expect(unknown.errors.contains("'claude-opus-4' is unpriced"))
        #expect(try prices(["frob"]).status == 2)
    }

    @Test("update keeps a table fetched from a server; overrides stand over single models and say so")
    func updateAndOverrides() throws {
        let origin = try LocalServer.sharedHTTPServer().origin
        let update = try prices(["update", "--from", "\(origin)/litellm-prices"])
        #expect(update.status == 0, "\(update.errors)")
        #expect(update.output.contains("kept the prices of 2 models from \(origin)/litellm-prices"))
        let kept = try prices(["show", "gpt-5.5"])
        #expect(kept.output.contains("from prices as of") && kept.output.contains("\(origin)/litellm-prices"))
        #expect(figures(kept.output, row: "up to 200k") == ["5", "30", "5", "10", "0.5"])
        // A model the kept table lacks is unpriced now: the kept table replaces the bundled one.
        #expect(try prices(["show", "claude-sonnet-4-5"]).status == 1)

        try FileManager.default.createDirectory(atPath: root.file("config/aggctl"), withIntermediateDirectories: true)
        try Data(#"{"claude-opus-4-6": {"input_cost_per_token": 4e-06, "output_cost_per_token": 2e-05}}"#.utf8)
            .write(to: URL(fileURLWithPath: root.file("config/aggctl/prices.json")))
        let overridden = try prices(["show", "claude-opus-4-6"])
        #expect(overridden.output.contains("from your prices.json"))
        #expect(figures(overridden.output, row: "up to 200k") == ["4", "20", "4", "8", "4"])
        #expect(try prices(["update", "--from", "http://"]).status == 2)
        #expect(try prices(["update", "--from", root.file("none.json")]).status == 1)
    }

    @Test("a table that cannot be had is exit 1 with its reason, and the kept table stays as it was")
    func updateRefused() throws {
        let origin = try LocalServer.sharedHTTPServer().origin
        let missing = try prices(["update", "--from", "\(origin)/status/404"])
        #expect(missing.status == 1 && missing.errors.contains("HTTP 404"), "\(missing.errors)")
        // A URL's query (a token, say) is never shown, not even when nothing answers.
        let unreachable = try prices(["update", "--from", "http://127.0.0.1:\(LocalServer.freePort())/t?token=secret"])
        #expect(unreachable.status == 1 && !unreachable.errors.contains("secret"), "\(unreachable.errors)")
        try root.write("table.json", "[1, 2, 3]")
        let wrong = try prices(["update", "--from", root.file("table.json")])
        #expect(wrong.status == 1 && wrong.errors.contains("is not a price table"))
        #expect(!FileManager.default.fileExists(atPath: root.file("state/aggctl/prices.json")))
        // A damaged overrides file is named, and the table priced without it.
        try root.write("config/aggctl/prices.json", "{")
        let shown = try prices(["show", "claude-opus-4-6"])
        #expect(shown.status == 0 && shown.errors.contains("prices.json' is not a price table"))
        #expect(figures(shown.output, row: "up to 200k") == ["5", "25", "6.25", "10", "0.5"])
    }
}
