import Foundation
import Snapshots
import TestSupport
import Testing

/// ntfy, Slack and Discord through the binary, against a local server that checks each request as the
/// service documents it (`Tests/Servers/http_server.py`): the format, the escaping a record's text
/// needs there, a failed first attempt retried within the run, each event delivered once, tokens sent
/// and never shown.
struct NotifierServicesEndToEndTests {
    let root = TemporaryDirectory("aggctl-services")
    /// An account whose e-mail tries every trick the three services have.
    static let hostile = "<!channel>@everyone*x*_y_&z\u{1B}[31m"

    func check(_ now: String, _ extra: [String], environment: [String: String] = [:]) throws -> BinaryRun {
        try BinaryRun.run(
            ["check", "--store", root.file("store"), "--now", now] + extra,
            environment: ["HOME": root.file("home"), "XDG_STATE_HOME": root.file("state"), "PATH": "/usr/bin:/bin"]
                .merging(environment) { $1 })
    }

    func publish(_ at: String, used: Double) throws {
        let entry = Records.entry(email: Self.hostile, at: at, sessionUsed: used, resetsAt: "2026-11-30T15:00:00Z")
        try root.write("store/laptop.json", Records.json(Records.snapshot("laptop", generatedAt: at, [entry])))
    }

    /// One depleted event, delivered to `spec` (a 500 first), then a run with nothing new.
    func deliverOne(_ spec: (String) -> String, path: String, environment: [String: String] = [:]) throws
        -> (posts: [LoggedRequest], runs: [BinaryRun])
    {
        try publish("2026-11-30T12:00:00Z", used: 40)
        let server = try LocalServer.sharedHTTPServer()
        let first = try check(
            "2026-11-30T12:00:30Z", ["--notify", spec(server.origin + path)], environment: environment)
        try publish("2026-11-30T12:10:00Z", used: 100)
        let second = try check(
            "2026-11-30T12:10:30Z", ["--notify", spec(server.origin + path)], environment: environment)
        let third = try check(
            "2026-11-30T12:11:00Z", ["--notify", spec(server.origin + path)], environment: environment)
        return (try requests(server).filter { $0.path == path }, [first, second, third])
    }

    @Test("ntfy: the body as the message, Title, Priority 5 and Tags for depleted, the token as a bearer")
    func ntfy() throws {
        let key = UUID().uuidString.prefix(8)
        let (posts, runs) = try deliverOne(
            { "ntfy:" + $0 }, path: "/flaky/\(key)/1/ntfy/aggctl-alerts",
            environment: ["AGGCTL_NTFY_TOKEN": "tk_secret-token"])
        for run in runs { #expect(run.status == 0, "\(run.errors)") }
        // The 500, then the delivery; nothing on the run after it.
        #expect(posts.count == 2)
        let read = try #require(posts.last?.decoded)
        #expect(read["title"] == "Claude session depleted")
        #expect(read["priority"] == "5")
        #expect(read["tags"]??.split(separator: ",").first == "rotating_light")
        #expect(read["authorization"] == "Bearer tk_secret-token")
        let message = try #require(read["message"] ?? nil)
        #expect(message.hasPrefix("0% left."))
        #expect(!message.contains("\u{1B}"), "a record's ESC never reaches a phone")
        for run in runs { #expect(!(run.output + run.errors).contains("tk_secret")) }
    }

    @Test("ntfy: a refused request names the server only, never the topic or the token")
    func ntfyRefused() throws {
        try publish("2026-11-30T12:00:00Z", used: 100)
        let server = try LocalServer.sharedHTTPServer()
        let run = try check(
            "2026-11-30T12:00:30Z", ["--notify", "ntfy:" + server.origin + "/ntfy/not.a.topic!"],
            environment: ["AGGCTL_NTFY_TOKEN": "tk_secret-token"])
        #expect(run.status == 1)
        #expect(run.errors.contains("HTTP 400"), "\(run.errors)")
        #expect(!run.errors.contains("topic") && !run.errors.contains("tk_secret"), "\(run.errors)")
    }

    @Test("Slack: one text with &, < and > escaped, so a record makes no link and no mention")
    func slack() throws {
        let key = UUID().uuidString.prefix(8)
        let (posts, runs) = try deliverOne({ "slack:" + $0 }, path: "/flaky/\(key)/1/slack/services/T0/B0/x")
        for run in runs { #expect(run.status == 0, "\(run.errors)") }
        #expect(posts.count == 2)
        let text = try #require(posts.last?.decoded?["text"] ?? nil)
        #expect(text.hasPrefix("*Claude session depleted*\n0% left."))
        #expect(text.contains("&lt;!channel&gt;"))
    }

    @Test("Discord: content with markdown escaped and no mentions allowed")
    func discord() throws {
        let key = UUID().uuidString.prefix(8)
        let (posts, runs) = try deliverOne({ "discord:" + $0 }, path: "/flaky/\(key)/1/discord/api/webhooks/1/t")
        for run in runs { #expect(run.status == 0, "\(run.errors)") }
        #expect(posts.count == 2)
        let content = try #require(posts.last?.decoded?["content"] ?? nil)
        #expect(content.hasPrefix("**Claude session depleted**\n0% left."))
        #expect(content.contains("\\@everyone\\*x\\*\\_y\\_"))
    }

    @Test("Discord: a limit with a 5000-character label is cut, and the account and the reset stay in the message")
    func discordLongLabel() throws {
        let server = try LocalServer.sharedHTTPServer()
        let path = "/discord/api/webhooks/long-\(UUID().uuidString.prefix(8))/t"
        func publish(_ at: String, used: Double) throws {
            var entry = Records.entry(
                email: "long@example.com", at: at, sessionUsed: 10, resetsAt: "2026-11-30T15:00:00Z")
            entry.limits = [
                Limit(
                    id: "pool", label: String(repeating: "Long label ", count: 455), windowMinutes: 43_200,
                    usedPercent: used, resetsAt: Records.date("2026-12-01T00:00:00Z"))
            ]
            try root.write("store/laptop.json", Records.json(Records.snapshot("laptop", generatedAt: at, [entry])))
        }
        try publish("2026-11-30T12:00:00Z", used: 40)
        #expect(try check("2026-11-30T12:00:30Z", ["--notify", "discord:" + server.origin + path]).status == 0)
        try publish("2026-11-30T12:10:00Z", used: 100)
        let run = try check("2026-11-30T12:10:30Z", ["--notify", "discord:" + server.origin + path])
        #expect(run.status == 0, "\(run.errors)")
        let content = try #require(try requests(server).filter { $0.path == path }.last?.decoded?["content"] ?? nil)
        #expect(content.count <= 2000)
        #expect(content.hasPrefix("**Claude Long label Long label"))
        #expect(content.contains("… limit reached**\n0% left."), "\(content)")
        // Discord's markdown characters come escaped (SafeText.discordText).
        #expect(content.contains(#"Account\: long\@example.com"#), "\(content)")
        #expect(content.contains(#"Resets at 2026\-12\-01 00\:00"#), "\(content)")
    }

    @Test("the three services are choices of --notify in help and completions")
    func helpNamesThem() throws {
        let help = try BinaryRun.run(["check", "--help"], environment: ["PATH": "/usr/bin:/bin"])
        for form in ["ntfy:URL", "slack:URL", "discord:URL"] { #expect(help.output.contains(form)) }
        let bash = try BinaryRun.run(["completions", "bash"], environment: ["PATH": "/usr/bin:/bin"])
        #expect(bash.output.contains("ntfy:"))
    }
}
