import Foundation
import HTTP
import Snapshots
import TestSupport
import Testing

/// What aggctl does with hostile input and failing output, as a user (or an attacker) would see it with
/// the built binary: nothing destroyed, nothing forged on the screen, no secret shown, no event lost.
struct TrustEndToEndTests {
    let root = TemporaryDirectory("aggctl-trust")
    var store: String { root.file("store") }

    var environment: [String: String] {
        ["HOME": root.file("home"), "XDG_STATE_HOME": root.file("state"), "PATH": "/usr/bin:/bin"]
    }

    func write(_ deviceID: String, _ entries: [ProviderUsage], at generatedAt: String, name: String? = nil) throws {
        try root.write(
            "store/\(deviceID).json",
            Records.json(Records.snapshot(deviceID, generatedAt: generatedAt, name: name, entries)))
    }

    func run(_ arguments: [String], _ extra: [String: String] = [:]) throws -> BinaryRun {
        try BinaryRun.run(arguments, environment: environment.merging(extra) { $1 })
    }

    /// Runs `aggctl` through bash with `redirect` applied to its stdout.
    func run(_ arguments: [String], stdout redirect: String) throws -> BinaryRun {
        let quoted = arguments.map { "'\($0)'" }.joined(separator: " ")
        return try BinaryRun.run(
            ["-c", "exec '\(BinaryRun.binary)' \(quoted) \(redirect)"], environment: environment, shell: true)
    }

    func check(_ now: String, _ extra: [String] = []) throws -> BinaryRun {
        try run(["check", "--store", store, "--now", now, "--notify", "stdout"] + extra)
    }

    func events(_ output: String) -> [[String: Any]] {
        output.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    // MARK: output that did not arrive

    @Test("an event written to a full disk or a closed stdout stays queued, the run exits 1, the next run delivers")
    func failedOutputKeepsEvent() throws {
        for (index, redirect) in [">/dev/full", ">&-"].enumerated() {
            let at = 12 + index
            try write(
                "laptop", [Records.entry(at: "2026-11-30T\(at):00:00Z", sessionUsed: 40)], at: "2026-11-30T\(at):00:00Z"
            )
            #expect(try check("2026-11-30T\(at):00:30Z").status == 0)
            try write(
                "laptop", [Records.entry(at: "2026-11-30T\(at):10:00Z", sessionUsed: 100)],
                at: "2026-11-30T\(at):10:00Z")
            let failed = try run(
                ["check", "--store", store, "--now", "2026-11-30T\(at):10:30Z", "--notify", "stdout"], stdout: redirect)
            #expect(failed.status == 1, "\(redirect): \(failed.output) \(failed.errors)")
            #expect(failed.errors.contains("cannot write to standard output"), "\(redirect): \(failed.errors)")
            #expect(failed.errors.contains("1 event(s) stay queued"), "\(redirect): \(failed.errors)")
            let next = try check("2026-11-30T\(at):11:00Z")
            #expect(next.status == 0)
            #expect(events(next.output).map { $0["kind"] as? String } == ["depleted"], "\(redirect)")
            #expect(try check("2026-11-30T\(at):11:30Z").output == "")
            // The next part starts from a restored window.
            try write(
                "laptop", [Records.entry(at: "2026-11-30T\(at):50:00Z", sessionUsed: 1)], at: "2026-11-30T\(at):50:00Z")
            _ = try check("2026-11-30T15:00:00Z")
        }
    }

    @Test("status --json to a full disk exits 1 and says so; a reader that goes away is still a quiet end")
    func statusToFullDisk() throws {
        try write("laptop", [Records.entry(at: "2026-11-30T12:00:00Z")], at: "2026-11-30T12:00:00Z")
        let full = try run(["status", "--store", store, "--json"], stdout: ">/dev/full")
        #expect(full.status == 1)
        #expect(full.errors.contains("cannot write to standard output: no space left on device"), "\(full.errors)")
        let closed = try BinaryRun.run(
            [
                "-c",
                "'\(BinaryRun.binary)' status --store '\(store)' --json | head -c 1 >/dev/null; echo ${PIPESTATUS[0]}",
            ],
            environment: environment, shell: true)
        #expect(closed.output == "0\n", "\(closed.errors)")
        #expect(closed.errors == "")
    }

    // MARK: entries without figures

    @Test("a newer error-only entry from another machine leaves the figures in status and check still fires")
    func errorOnlyEntryNeverHidesFigures() throws {
        try write("laptop", [Records.entry(at: "2026-11-30T12:00:00Z", sessionUsed: 40)], at: "2026-11-30T12:00:00Z")
        #expect(try check("2026-11-30T12:00:30Z").status == 0)
        try write(
            "laptop", [Records.entry(at: "2026-11-30T12:10:00Z", sessionUsed: 100, resetsAt: "2026-11-30T15:00:00Z")],
            at: "2026-11-30T12:10:00Z")
        try write(
            "desktop",
            [Records.entry(at: "2026-11-30T12:20:00Z", sessionUsed: nil, error: "signed out (token expired)")],
            at: "2026-11-30T12:20:00Z")

        let status = try run(["status", "--store", store, "--json", "--now", "2026-11-30T12:21:00Z"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
        let account = try #require((report["accounts"] as? [[String: Any]])?.first)
        #expect((account["session"] as? [String: Any])?["usedPercent"] as? Double == 100)
        #expect(account["deviceID"] as? String == "laptop")
        #expect(account["error"] as? String == "signed out (token expired)")
        #expect(account["errorDeviceID"] as? String == "desktop")
        #expect(account["seenOn"] as? [String] == ["desktop", "laptop"])

        let table = try run(["status", "--store", store, "--now", "2026-11-30T12:21:00Z"])
        let row = table.output.split(separator: "\n")[1]
        #expect(row.contains("depleted") && row.contains("signed out (token expired) (desktop, newer)"), "\(row)")

        let fired = try check("2026-11-30T12:21:00Z")
        #expect(events(fired.output).map { $0["kind"] as? String } == ["depleted"], "\(fired.output)")
        // The error-only entry moved nothing: a later check has nothing to say.
        #expect(try check("2026-11-30T12:22:00Z").output == "")
    }

    // MARK: what reaches the terminal

    @Test("a record full of escape sequences gives a table and warnings without one control character")
    func escapeSequencesNeverReachTheTerminal() throws {
        let hostile =
            "\u{1B}[2J\u{1B}]0;pwned\u{07}\r\nClaude  forged@evil.test  Max  100% left\u{1B}[31m\u{9B}1A\u{202E}"
        var entry = Records.entry(email: "you\(hostile)@example.com", at: "2026-11-30T12:00:00Z")
        entry.plan = "Max\(hostile)"
        entry.error = "could not\(hostile)"
        var other = Records.entry("codex", email: "me@example.com", at: "2026-11-30T12:00:00Z")
        other.modelWeekly = [NamedWindow(name: "opus\(hostile)", window: UsageWindow(usedPercent: 10))]
        var snapshot = Records.snapshot(
            "laptop", generatedAt: "2026-11-30T12:00:00Z", name: "lap\(hostile)", [entry, other])
        snapshot.appVersion = "aggctl\(hostile)"
        try root.write("store/laptop.json", Records.json(snapshot))
        // A broken record whose file name is itself an escape sequence, reported in a warning.
        try root.write("store/\u{1B}[2J\u{1B}]0;x\u{07}bad.json", "{not json")

        for command in [["status"], ["devices"], ["status", "--json"], ["devices", "--json"]] {
            let result = try run(command + ["--store", store, "--now", "2026-11-30T12:01:00Z"])
            #expect(result.status == 0, "\(command): \(result.errors)")
            for (stream, text) in [("stdout", result.output), ("stderr", result.errors)] {
                let controls = text.unicodeScalars.filter {
                    ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}"
                }
                #expect(controls.isEmpty, "\(command) \(stream) holds \(controls.map { $0.value })")
            }
            let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            switch command {
            case ["status"]: #expect(lines.count == 3, "a header and one line per account: \(lines)")
            case ["devices"]: #expect(lines.count == 2, "a header and one line per device: \(lines)")
            default: #expect(lines.count == 1, "one JSON document on one line")
            }
            // The broken record is a warning for people, a problem in the JSON for programs.
            let warnings = result.errors.split(separator: "\n")
            if command.contains("--json") {
                #expect(warnings.isEmpty, "\(result.errors)")
                #expect(result.output.contains(#""file":"\u001b[2J\u001b]0;x\u0007bad.json""#), "\(result.output)")
            } else {
                #expect(warnings.count == 1 && warnings[0].hasPrefix("aggctl: warning: '\\x1B[2J"), "\(result.errors)")
            }
        }
    }

    @Test("publish --from refuses control characters in identity fields, naming the field")
    func publishRefusesControlCharacters() throws {
        try root.write(
            "input.json",
            #"[{"providerID": "claude", "accountEmail": "a\u001b[2J@b.test", "lastUpdated": "2026-11-30T12:00:00Z"}]"#)
        let result = try run(["publish", "--store", store, "--from", root.file("input.json"), "--device-id", "laptop"])
        #expect(result.status == 1)
        #expect(result.errors.contains("providers[0].accountEmail holds control characters"), "\(result.errors)")
        #expect(!FileManager.default.fileExists(atPath: store + "/laptop.json"))
        let named = try run(
            ["publish", "--store", store, "--from", root.file("input.json"), "--device-name", "a\u{1B}]0;x\u{07}"])
        #expect(named.status == 2)
        #expect(named.errors.contains("--device-name: 'a\\x1B]0;x\\x07' holds control characters"), "\(named.errors)")
    }

    // MARK: what reaches an HTTP request

    @Test("a token with CR/LF never reaches the wire: the entry says it is malformed, no request is made")
    func crlfTokenNeverSent() throws {
        let server = try LocalServer.sharedHTTPServer()
        let trap = "/trap-\(UUID().uuidString.prefix(8))"
        let result = try run(
            ["publish", "--store", store, "--source", "claude-api:" + root.file("claude"), "--dry-run"],
            ["CLAUDE_CODE_OAUTH_TOKEN": "abc\r\nX-Evil: 1", "AGGCTL_CLAUDE_API_URL": server.origin + trap])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("the token from CLAUDE_CODE_OAUTH_TOKEN is malformed"), "\(result.output)")
        #expect(!result.output.contains("X-Evil") && !result.errors.contains("X-Evil"))
        #expect(try requests(server).filter { $0.path.hasPrefix(trap) }.isEmpty)
    }

    @Test("a WebDAV password or webhook token with CR/LF is refused before any request")
    func crlfCredentialsNeverSent() throws {
        let server = try LocalServer.sharedHTTPServer()
        let trap = "/trap-\(UUID().uuidString.prefix(8))"
        let status = try run(
            ["status", "--store", server.origin + trap + "/store/"],
            ["AGGCTL_WEBDAV_USER": "me", "AGGCTL_WEBDAV_PASSWORD": "pw\r\nX-Evil: 1"])
        #expect(status.status == 1)
        #expect(status.errors.contains("refused before sending: the user name or password holds a line break"))
        #expect(!status.errors.contains("X-Evil"))
        try write("laptop", [Records.entry(at: "2026-11-30T12:00:00Z", sessionUsed: 100)], at: "2026-11-30T12:00:00Z")
        let hook = try run(
            [
                "check", "--store", store, "--now", "2026-11-30T12:01:00Z", "--notify",
                "webhook:\(server.origin)\(trap)",
            ],
            ["AGGCTL_WEBHOOK_TOKEN": "tok\r\nX-Evil: 1"])
        #expect(hook.status == 2)
        #expect(hook.errors.contains("AGGCTL_WEBHOOK_TOKEN: the token is empty or holds a line break or NUL"))
        #expect(try requests(server).filter { $0.path.hasPrefix(trap) }.isEmpty)
    }

    @Test("webhook failures name only scheme and host; userinfo is Basic auth, the token Bearer; no redirects")
    func webhookSecrets() throws {
        let server = try LocalServer.sharedHTTPServer()
        let key = UUID().uuidString.prefix(8)
        try write("laptop", [Records.entry(at: "2026-11-30T12:00:00Z", sessionUsed: 100)], at: "2026-11-30T12:00:00Z")
        let secretURL = "http://hookuser:hook-pw-9@127.0.0.1:\(server.port)/failing/sekrit-\(key)?token=qq\(key)"
        let failed = try run([
            "check", "--store", store, "--now", "2026-11-30T12:01:00Z", "--notify", "webhook:" + secretURL,
        ])
        #expect(failed.status == 1)
        #expect(failed.errors.contains("http://127.0.0.1:\(server.port)"), "\(failed.errors)")
        for secret in ["sekrit", "qq\(key)", "hookuser", "hook-pw-9", "/failing"] {
            #expect(!failed.errors.contains(secret), "'\(secret)' shown: \(failed.errors)")
            #expect(!failed.output.contains(secret))
        }
        // The same event again, to a working URL with userinfo, then with a bearer token.
        let basic = try run(
            [
                "check", "--store", store, "--now", "2026-11-30T12:02:00Z", "--notify",
                "webhook:http://hookuser:hook-pw-9@127.0.0.1:\(server.port)/hook-basic-\(key)",
            ])
        #expect(basic.status == 0, "\(basic.errors)")
        try write("laptop", [Records.entry(at: "2026-11-30T12:10:00Z", sessionUsed: 1)], at: "2026-11-30T12:10:00Z")
        let bearer = try run(
            [
                "check", "--store", store, "--now", "2026-11-30T15:10:00Z", "--notify",
                "webhook:\(server.origin)/hook-bearer-\(key)",
            ], ["AGGCTL_WEBHOOK_TOKEN": "tok-\(key)"])
        #expect(bearer.status == 0, "\(bearer.errors)")
        let log = try requests(server)
        let expectedBasic = "Basic " + Data("hookuser:hook-pw-9".utf8).base64EncodedString()
        #expect(log.filter { $0.path == "/hook-basic-\(key)" }.map(\.authorization) == [expectedBasic])
        #expect(log.filter { $0.path == "/hook-bearer-\(key)" }.map(\.authorization) == ["Bearer tok-\(key)"])

        // A redirect is a failure, not a new destination for the event.
        try write("laptop", [Records.entry(at: "2026-11-30T15:20:00Z", sessionUsed: 100)], at: "2026-11-30T15:20:00Z")
        let redirected = try run(
            [
                "check", "--store", store, "--now", "2026-11-30T15:21:00Z", "--notify",
                "webhook:\(server.origin)/redirect",
            ])
        #expect(redirected.status == 1)
        #expect(redirected.errors.contains("the server answered HTTP 302"), "\(redirected.errors)")
    }

    // MARK: alerts

    @Test("a --warn-at threshold added after the first check fires once when crossed")
    func thresholdAddedLater() throws {
        try write("laptop", [Records.entry(at: "2026-11-30T12:00:00Z", sessionUsed: 60)], at: "2026-11-30T12:00:00Z")
        #expect(try check("2026-11-30T12:00:30Z").output == "")
        try write("laptop", [Records.entry(at: "2026-11-30T12:10:00Z", sessionUsed: 70)], at: "2026-11-30T12:10:00Z")
        #expect(try check("2026-11-30T12:10:30Z", ["--warn-at", "25"]).output == "")
        try write("laptop", [Records.entry(at: "2026-11-30T12:20:00Z", sessionUsed: 80)], at: "2026-11-30T12:20:00Z")
        let warned = try check("2026-11-30T12:20:30Z", ["--warn-at", "25"])
        #expect(events(warned.output).map { $0["kind"] as? String } == ["warning"], "\(warned.output)")
        #expect((events(warned.output).first?["body"] as? String)?.hasPrefix("20% left.") == true)
        try write("laptop", [Records.entry(at: "2026-11-30T12:30:00Z", sessionUsed: 85)], at: "2026-11-30T12:30:00Z")
        #expect(try check("2026-11-30T12:30:30Z", ["--warn-at", "25"]).output == "")
    }
}

/// A store URL with a query or fragment against real servers: refused before any request, every file
/// on the server left as it was.
@Suite(
    "Store URLs against real WebDAV servers",
    .enabled(if: WebDAVServer.Kind.allCases.allSatisfy { RequiredTool.available($0.tool) }, webDAVServersMissing))
struct StoreURLEndToEndTests {
    let root = TemporaryDirectory("aggctl-dav-url")

    /// Every file under `folder` with its bytes.
    func snapshot(_ folder: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let name = enumerator?.nextObject() as? String {
            var isFolder: ObjCBool = false
            FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isFolder)
            files[name] =
                isFolder.boolValue
                ? Data("<folder>".utf8) : try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
        }
        return files
    }

    @Test(
        "publish and doctor with '?' or '#' in the store URL exit 2 and leave every file byte for byte",
        arguments: WebDAVServer.Kind.allCases)
    func queryAndFragmentRefused(kind: WebDAVServer.Kind) throws {
        let server = try WebDAVServer.shared(kind)
        let folder = try server.makeFolder()
        let notes = Data("my notes, not a record\n".utf8)
        try notes.write(to: URL(fileURLWithPath: "\(server.root)/\(folder)/notes.txt"))
        try FileManager.default.createDirectory(
            atPath: "\(server.root)/\(folder)/store", withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: URL(fileURLWithPath: "\(server.root)/\(folder)/store/other.json"))
        let before = try snapshot(server.root + "/" + folder)
        // Only this test's folder counts: other tests use the same server at the same time.
        let requestsBefore = server.requestLog().filter { $0.contains("/\(folder)/") }.count
        let environment = [
            "HOME": root.path, "XDG_STATE_HOME": root.file("state"), "PATH": "/usr/bin:/bin",
            "AGGCTL_WEBDAV_USER": WebDAVServer.user, "AGGCTL_WEBDAV_PASSWORD": WebDAVServer.password,
        ]
        let input = Data(#"[{"providerID": "claude", "lastUpdated": "2026-11-30T12:00:00Z"}]"#.utf8)
        for suffix in ["notes.txt?", "notes.txt#", "notes.txt?x=1#y", "store/?", "store/#top"] {
            let url = "\(server.origin)/\(folder)/\(suffix)"
            let publish = try BinaryRun.run(
                ["publish", "--store", url, "--from", "-", "--device-id", "laptop"], environment: environment,
                input: input)
            #expect(publish.status == 2, "\(kind) \(suffix): \(publish.errors)")
            #expect(publish.errors.contains("a store URL names a collection only"), "\(publish.errors)")
            let doctor = try BinaryRun.run(["doctor", "--store", url], environment: environment)
            #expect(doctor.status == 2, "\(kind) \(suffix): \(doctor.output) \(doctor.errors)")
        }
        #expect(try snapshot(server.root + "/" + folder) == before, "\(kind)")
        // Not one request reached the server (rclone keeps no request log).
        #expect(server.requestLog().filter { $0.contains("/\(folder)/") }.count == requestsBefore, "\(kind)")
    }
}
