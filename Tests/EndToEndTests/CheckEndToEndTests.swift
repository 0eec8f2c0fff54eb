import Foundation
import Serialization
import Snapshots
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `aggctl check` as cron runs it: real binary, real store, real hook scripts.
struct CheckEndToEndTests {
    let root = TemporaryDirectory("aggctl-check")
    var store: String { root.file("store") }

    var environment: [String: String] {
        ["HOME": root.file("home"), "XDG_STATE_HOME": root.file("state"), "PATH": "/usr/bin:/bin"]
    }

    /// This machine publishes a Claude account at `lastUpdated` with `used` percent of its session used.
    func publish(_ lastUpdated: String, used: Double, email: String = "you@example.com") throws {
        let entry = Records.entry(
            email: email, at: lastUpdated, sessionUsed: used, resetsAt: Records.sessionReset(after: lastUpdated))
        let record = Records.snapshot("laptop", generatedAt: lastUpdated, [entry])
        try root.write("store/laptop.json", Records.json(record))
    }

    /// The account seen at 40% by a first check, then depleted: the next check has one event to deliver.
    func prepareDepletedEvent() throws {
        try publish("2026-11-30T12:00:00Z", used: 40)
        _ = try check("2026-11-30T12:00:30Z")
        try publish("2026-11-30T12:10:00Z", used: 100)
    }

    func check(_ now: String, _ extra: [String] = []) throws -> BinaryRun {
        try BinaryRun.run(["check", "--store", store, "--now", now] + extra, environment: environment)
    }

    /// A hook script: appends the event's id and kind (from its JSON on stdin) to `log`, then `then`.
    func hook(_ name: String, log: String, then extra: String = "") throws -> String {
        let path = try root.writeExecutable(
            name,
            """
            #!/bin/sh
            read -r line
            id=$(printf '%s' "$line" | sed 's/.*"id":"\\([^"]*\\)".*/\\1/')
            echo "$id $AGGCTL_EVENT_KIND" >> '\(log)'
            \(extra)
            """)
        return path
    }

    func lines(_ path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    @Test("a depleted then restored sequence prints exactly those two events")
    func depletedThenRestored() throws {
        try publish("2026-11-30T12:00:00Z", used: 40)
        #expect(try check("2026-11-30T12:00:30Z").output == "")
        try publish("2026-11-30T12:10:00Z", used: 100)
        let depleted = try check("2026-11-30T12:10:30Z")
        #expect(try check("2026-11-30T12:11:00Z").output == "")
        try publish("2026-11-30T15:01:00Z", used: 2)
        let restored = try check("2026-11-30T15:01:30Z")
        #expect(depleted.status == 0 && restored.status == 0)
        let events = (depleted.output + restored.output).split(separator: "\n").map { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
        }
        #expect(events.map { $0["kind"] as? String } == ["depleted", "restored"])
        #expect(events.map { $0["title"] as? String } == ["Claude session depleted", "Claude session restored"])
        #expect(
            Set(events[0].keys) == [
                "id", "kind", "window", "providerID", "accountEmail", "remainingPercent", "resetsAt", "title", "body",
                "at",
            ])
        #expect(events[0]["remainingPercent"] as? Double == 0)
    }

    @Test("four checks started at once deliver a new event once")
    func concurrentChecks() throws {
        try prepareDepletedEvent()
        let log = root.file("delivered.log")
        let hookPath = try hook("hook.sh", log: log, then: "sleep 0.2")
        let runs = UnsafeMutableBufferPointer<Int32>.allocate(capacity: 4)
        defer { runs.deallocate() }
        nonisolated(unsafe) let statuses = runs
        let environment = self.environment
        let store = self.store
        DispatchQueue.concurrentPerform(iterations: 4) { index in
            let run = try? BinaryRun.run(
                ["check", "--store", store, "--now", "2026-11-30T12:10:30Z", "--notify", "command:" + hookPath],
                environment: environment)
            statuses[index] = run?.status ?? -1
        }
        #expect(Array(runs) == [0, 0, 0, 0])
        #expect(lines(log).count == 1)
        #expect(lines(log).first?.hasSuffix(" depleted") == true)
    }

    @Test("a hook that fails makes the run exit 1, and the event is delivered on the next run, once")
    func failingHookRetriedNextRun() throws {
        try prepareDepletedEvent()
        let log = root.file("delivered.log")
        let gate = root.file("hook-may-succeed")
        let hookPath = try hook("hook.sh", log: log, then: "[ -e '\(gate)' ] || { echo 'service away' >&2; exit 3; }")
        let failed = try check("2026-11-30T12:10:30Z", ["--notify", "command:" + hookPath])
        #expect(failed.status == 1)
        #expect(failed.errors.contains("exited with status 3: service away"))
        #expect(failed.errors.contains("stay queued"))
        let attempts = lines(log)
        #expect(attempts.count == 4)
        #expect(Set(attempts).count == 1)
        try root.write("hook-may-succeed", "")
        let next = try check("2026-11-30T12:11:00Z", ["--notify", "command:" + hookPath])
        #expect(next.status == 0)
        #expect(lines(log).count == 5)
        #expect(lines(log).last == attempts.first)
        #expect(try check("2026-11-30T12:12:00Z", ["--notify", "command:" + hookPath]).status == 0)
        #expect(lines(log).count == 5)
    }

    @Test("kill -9 between delivery and the state write loses nothing, and a repeat has the same id")
    func killedAfterDelivery() throws {
        try prepareDepletedEvent()
        let log = root.file("delivered.log")
        let marker = root.file("killed-once")
        // Delivers, then kills the check that runs it before it can record the delivery.
        let hookPath = try hook(
            "hook.sh", log: log, then: "[ -e '\(marker)' ] || { touch '\(marker)'; kill -9 $PPID; sleep 5; }")
        let killed = try check("2026-11-30T12:10:30Z", ["--notify", "command:" + hookPath])
        #expect(killed.status != 0)
        let again = try check("2026-11-30T12:11:00Z", ["--notify", "command:" + hookPath])
        #expect(again.status == 0)
        let delivered = lines(log)
        #expect(delivered.count == 2)
        #expect(Set(delivered).count == 1)
        #expect(try check("2026-11-30T12:12:00Z", ["--notify", "command:" + hookPath]).status == 0)
        #expect(lines(log).count == 2)
    }

    @Test("an account whose text is shell syntax reaches the hook as text, never a shell")
    func shellSyntaxStaysText() throws {
        let pwned = root.file("pwned")
        let email = "$(touch \(pwned))`touch \(pwned)`;touch \(pwned)@example.com"
        try publish("2026-11-30T12:00:00Z", used: 100, email: email)
        let received = root.file("received")
        let hookPath = try root.writeExecutable(
            "hook.sh", "#!/bin/sh\nprintf '%s\\n' \"$AGGCTL_EVENT_ACCOUNT\" > '\(received)'\ncat >> '\(received)'\n")
        let run = try check("2026-11-30T12:00:30Z", ["--notify", "command:" + hookPath, "--notify", "stdout"])
        #expect(run.status == 0)
        #expect(!FileManager.default.fileExists(atPath: pwned))
        let text = try String(contentsOfFile: received, encoding: .utf8)
        #expect(text.hasPrefix(email + "\n"))
        #expect(run.output.contains("$(touch"))
    }

    @Test("an account with month-old figures is not forgotten by one run that could not read it")
    func oldAccountSurvivesOneFailedRead() throws {
        try publish("2026-10-20T12:00:00Z", used: 100)
        let first = try check("2026-11-30T12:00:30Z", ["--notify", "stdout"])
        #expect(first.output.contains("\"kind\":\"depleted\""), "\(first.output)")
        let record = try String(contentsOfFile: store + "/laptop.json", encoding: .utf8)
        try root.write("store/laptop.json", "{\"half\": ")
        let unreadable = try check("2026-11-30T12:01:30Z", ["--notify", "stdout"])
        #expect(unreadable.output.isEmpty)
        try root.write("store/laptop.json", record)
        let back = try check("2026-11-30T12:02:30Z", ["--notify", "stdout"])
        #expect(back.status == 0, "\(back.errors)")
        #expect(back.output.isEmpty, "fired again: \(back.output)")
    }

    @Test("an event's account is status --json's, byte for byte, however hostile; its texts are made safe")
    func eventAccountMatchesStatus() throws {
        let email = "evil\u{1B}[2J\u{07}#[fg=red]@example.com"
        try publish("2026-11-30T12:00:00Z", used: 100, email: email)
        let event = try check("2026-11-30T12:00:30Z", ["--notify", "stdout"])
        let status = try BinaryRun.run(
            ["status", "--store", store, "--json", "--now", "2026-11-30T12:00:30Z"], environment: environment)
        let eventJSON = try JSONSerialization.jsonObject(with: Data(event.output.utf8)) as? [String: Any]
        let statusJSON = try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any]
        let account = (statusJSON?["accounts"] as? [[String: Any]])?.first
        #expect(eventJSON?["accountEmail"] as? String == email)
        #expect(account?["accountEmail"] as? String == email)
        // Scalars compared: Foundation's `contains` of a string matched an ESC where there was none.
        #expect((eventJSON?["body"] as? String)?.unicodeScalars.contains("\u{1B}") == false)
        #expect(!event.output.unicodeScalars.contains("\u{1B}"), "JSON escapes the control characters")
    }

    @Test("fifty events at once: the state is not rewritten between deliveries, each success goes to the journal")
    func manyEventsOneWrite() throws {
        let entries = (0..<50).map { index in
            Records.entry(email: "user\(index)@example.com", at: "2026-11-30T12:00:00Z", sessionUsed: 100)
        }
        try root.write(
            "store/laptop.json", Records.json(Records.snapshot("laptop", generatedAt: "2026-11-30T12:00:00Z", entries)))
        let log = root.file("seen.log")
        let state = root.file("state/aggctl")
        let hookPath = try root.writeExecutable(
            "hook.sh",
            """
            #!/bin/sh
            cat >/dev/null
            lines=$(grep -c '[^ ]' '\(state)/alerts.journal' 2>/dev/null)
            echo "$(stat -c %i '\(state)/alerts.json') $lines" >> '\(log)'
            """)
        let run = try check("2026-11-30T12:00:30Z", ["--notify", "command:" + hookPath])
        #expect(run.status == 0, "\(run.errors)")
        let seen = lines(log)
        #expect(seen.count == 50)
        // One state file (one inode) throughout; the journal gets one recorded line per delivery (in the
        // blank lines claimed for them before the first went out).
        #expect(Set(seen.map { $0.split(separator: " ")[0] }).count == 1, "\(seen)")
        #expect(seen.map { Int($0.split(separator: " ")[1]) } == (0..<50).map { $0 }, "\(seen)")
        // The final write includes the journal, which then goes.
        #expect(!FileManager.default.fileExists(atPath: state + "/alerts.journal"))
    }

    @Test("a check that changes nothing leaves the state file as it was; one with an event writes it")
    func unchangedStateIsNotRewritten() throws {
        try publish("2026-11-30T12:00:00Z", used: 40)
        _ = try check("2026-11-30T12:00:30Z")
        let path = root.file("state/aggctl/alerts.json")
        func identity() throws -> String {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            return
                "\(attributes[.systemFileNumber] ?? 0) \((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
        }
        let first = try identity()
        let contents = try Data(contentsOf: URL(fileURLWithPath: path))
        for now in ["2026-11-30T12:01:30Z", "2026-11-30T12:02:30Z"] {
            let run = try check(now)
            #expect(run.status == 0 && run.output == "", "\(run.errors)")
        }
        #expect(try identity() == first, "no write, no rename")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == contents)
        try publish("2026-11-30T12:10:00Z", used: 100)
        let depleted = try check("2026-11-30T12:10:30Z")
        #expect(depleted.output.contains("\"depleted\""))
        #expect(try identity() != first, "the event's state is written")
    }

    @Test("a used percent out of range is reported naming the field, never silently")
    func outOfRangeReported() throws {
        try publish("2026-11-30T12:00:00Z", used: 150)
        let status = try BinaryRun.run(
            ["status", "--store", store, "--now", "2026-11-30T12:00:30Z"], environment: environment)
        #expect(status.status == 0)
        #expect(status.output.contains("depleted"))
        #expect(
            status.errors.contains(
                "aggctl: warning: 'laptop.json': providers[0].session.usedPercent 150.0 is outside 0...100; remaining clamped"
            ),
            "\(status.errors)")
        let run = try check("2026-11-30T12:00:30Z")
        #expect(run.output.contains("\"depleted\""))
        #expect(run.errors.contains("usedPercent 150.0 is outside 0...100"))
    }

    @Test("a webhook gets the event as JSON; a 500 first is retried within the run, and the event arrives once")
    func webhook() throws {
        try prepareDepletedEvent()
        let server = try LocalServer.sharedHTTPServer()
        let path = "/flaky/\(UUID().uuidString.prefix(8))/1/hook"
        let run = try check("2026-11-30T12:10:30Z", ["--notify", "webhook:" + server.origin + path])
        #expect(run.status == 0, "\(run.errors)")
        let posts = try requests(server).filter { $0.path == path }
        #expect(posts.map(\.method) == ["POST", "POST"])
        let event = try #require(
            JSONSerialization.jsonObject(with: Data(posts[1].body.utf8)) as? [String: Any])
        #expect(event["kind"] as? String == "depleted")
        #expect(event["title"] as? String == "Claude session depleted")
        #expect(posts.map(\.idempotencyKey) == [event["id"] as? String, event["id"] as? String])

        let again = try check("2026-11-30T12:11:00Z", ["--notify", "webhook:" + server.origin + path])
        #expect(again.status == 0)
        #expect(try requests(server).filter { $0.path == path }.count == 2)
    }

    @Test("a hook run by the binary gets none of the secrets a store, collector or notifier declares")
    func hookGetsNoSecrets() throws {
        try prepareDepletedEvent()
        let out = root.file("hook-env")
        let hook = try root.writeExecutable("env-hook.sh", "#!/bin/sh\ncat >/dev/null\nenv > '\(out)'\n")
        var secrets: [String: String] = ["AGGCTL_WEBDAV_USER": "dav-user-1", "AGGCTL_WEBDAV_PASSWORD": "dav-pw-1"]
        for (index, name) in [
            "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "GH_TOKEN",
            "GITHUB_TOKEN", "AGGCTL_WEBHOOK_TOKEN", "AGGCTL_NTFY_TOKEN",
        ].enumerated() {
            secrets[name] = "secret-value-\(index)"
        }
        let run = try BinaryRun.run(
            ["check", "--store", store, "--now", "2026-11-30T12:10:30Z", "--notify", "command:" + hook],
            environment: environment.merging(secrets) { $1 }.merging(["KEEP_ME": "yes"]) { $1 })
        #expect(run.status == 0, "\(run.errors)")
        let seen = try String(contentsOfFile: out, encoding: .utf8)
        #expect(seen.contains("KEEP_ME=yes") && seen.contains("AGGCTL_EVENT_KIND=depleted"))
        for (name, value) in secrets {
            #expect(!seen.contains(value) && !seen.contains(name + "="), "\(name) reached the hook")
        }
    }

    @Test("bad --notify and --warn-at values are usage errors naming the flag")
    func usageErrors() throws {
        let bogus = try check("2026-11-30T12:00:00Z", ["--notify", "pigeon"])
        #expect(bogus.status == 2)
        #expect(bogus.errors.contains("--notify: 'pigeon' is not a notification backend"))
        let ftp = try check("2026-11-30T12:00:00Z", ["--notify", "webhook:ftp://u:secret@host/x"])
        #expect(ftp.status == 2)
        #expect(ftp.errors.contains("--notify: 'ftp://host/...' is not an http(s) URL"), "\(ftp.errors)")
        #expect(!ftp.errors.contains("secret"))
        let relative = try check("2026-11-30T12:00:00Z", ["--notify", "command:hook.sh"])
        #expect(relative.status == 2)
        let warn = try check("2026-11-30T12:00:00Z", ["--warn-at", "25,abc"])
        #expect(warn.status == 2)
        #expect(warn.errors.contains("--warn-at: '25,abc'"))
    }

    @Test("an event still failing after a day is dropped with a warning, and the run no longer fails for it")
    func oldEventsDropped() throws {
        try publish("2026-11-30T12:00:00Z", used: 40)
        _ = try check("2026-11-30T12:00:30Z")
        let statePath = root.file("state/aggctl/alerts.json")
        var state =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: statePath))) as! [String: Any]
        let stale = RFC3339.format(Date().addingTimeInterval(-2 * 86_400))
        state["outbox"] = [
            [
                "createdAt": stale, "deliveredTo": [] as [String],
                "event": [
                    "id": "evt-00000000000000aa", "kind": "depleted", "providerID": "claude", "remainingPercent": 0,
                    "title": "Claude session depleted", "body": "0% left.", "at": "2026-11-28T12:00:00Z",
                ] as [String: Any],
            ]
        ]
        try JSONSerialization.data(withJSONObject: state).write(to: URL(fileURLWithPath: statePath))
        let hookPath = try root.writeExecutable("fail.sh", "#!/bin/sh\necho down >&2\nexit 1\n")
        let run = try check("2026-11-30T12:01:00Z", ["--notify", "command:" + hookPath])
        #expect(run.status == 0)
        #expect(run.errors.contains("dropping event evt-00000000000000aa"))
        #expect(run.errors.contains("undelivered for over a day"))
        let after =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: statePath))) as! [String: Any]
        #expect((after["outbox"] as? [Any])?.isEmpty == true)
    }

    @Test("the example hook that logs events receives each event's JSON")
    func exampleLogHook() throws {
        try publish("2026-11-30T12:00:00Z", used: 100)
        let log = root.file("events.log")
        var environment = self.environment
        environment["AGGCTL_EVENT_LOG"] = log
        let run = try BinaryRun.run(
            [
                "check", "--store", store, "--now", "2026-11-30T12:00:30Z", "--notify",
                "command:" + Repository.path("Examples/hooks/log.sh"),
            ],
            environment: environment)
        #expect(run.status == 0, "\(run.errors)")
        let line = try String(contentsOfFile: log, encoding: .utf8)
        let event = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(event?["kind"] as? String == "depleted")
    }

    @Test("a backend that is down is tried once per run, not once per queued event")
    func downBackendTriedOncePerRun() throws {
        try publish("2026-11-30T12:00:00Z", used: 40, email: "a@example.com")
        _ = try check("2026-11-30T12:00:30Z")
        // Three accounts run out at once: three events for one dead hook.
        let entries = ["a@example.com", "b@example.com", "c@example.com"].map {
            Records.entry(email: $0, at: "2026-11-30T12:10:00Z", sessionUsed: 100, resetsAt: "2026-11-30T15:00:00Z")
        }
        try root.write(
            "store/laptop.json", Records.json(Records.snapshot("laptop", generatedAt: "2026-11-30T12:10:00Z", entries)))
        let log = root.file("attempts.log")
        let hookPath = try hook("hook.sh", log: log, then: "exit 1")
        let run = try check("2026-11-30T12:10:30Z", ["--notify", "command:" + hookPath, "--notify", "stdout"])
        #expect(run.status == 1)
        #expect(lines(log).count == 4)
        #expect(run.output.components(separatedBy: "\"depleted\"").count == 4)
        #expect(run.errors.contains("3 event(s) stay queued"))
        // One line for the dead hook, not one per event it did not take.
        let told = run.errors.split(separator: "\n").filter { $0.contains("could not deliver") }
        #expect(told.count == 1, "\(run.errors)")
        #expect(told.first?.contains("could not deliver 3 events to 'command:\(hookPath)' (the first evt-") == true)
    }
}

/// A short run of `script/soak` (the long one is a script of its own): publishers and overlapping
/// checkers with kill -9 at random moments, no event lost, duplicates only with the same id after a kill.
struct SoakEndToEndTests {
    @Test("a ten-second soak with kill -9 loses no event and repeats none unexplained")
    func shortSoak() throws {
        let run = try BinaryRun.run(
            [
                Repository.path("script/soak"), "--publishers", "2", "--checkers", "2", "--seconds", "10",
                "--binary", BinaryRun.binary,
            ], environment: ["PATH": "/usr/bin:/bin"], executable: "/usr/bin/python3", timeout: 120)
        #expect(run.status == 0, "\(run.output)\(run.errors)")
        #expect(run.output.contains("lost 0,") && run.output.contains("(unexplained 0)"), "\(run.output)")
    }
}
