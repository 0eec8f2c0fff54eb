import Foundation
import Notify
import TestSupport
import Testing

struct NotificationTests {
    let notification = Notify.Notification(
        id: "evt-0123456789abcdef", kind: "depleted", providerID: "claude", accountEmail: "a\"b@example.com",
        remainingPercent: 0, resetsAt: Date(timeIntervalSince1970: 1_796_050_800), title: "Claude session depleted",
        body: "0% left.", at: Date(timeIntervalSince1970: 1_796_040_000), urgency: .critical)

    @Test("the JSON line has exactly the keys docs/format.md names, escaped text, UTC dates")
    func jsonLine() throws {
        let line = notification.jsonLine
        #expect(!line.contains("\n"))
        let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(
            Set(object.keys) == [
                "id", "kind", "window", "providerID", "accountEmail", "remainingPercent", "resetsAt", "title", "body",
                "at",
            ])
        #expect(object["accountEmail"] as? String == "a\"b@example.com")
        #expect(object["at"] as? String == "2026-11-30T12:00:00Z")
        #expect(object["resetsAt"] as? String == "2026-11-30T15:00:00Z")
        var withoutAccount = notification
        withoutAccount.accountEmail = nil
        withoutAccount.resetsAt = nil
        #expect(withoutAccount.jsonLine.contains("\"accountEmail\":null"))
        #expect(withoutAccount.jsonLine.contains("\"resetsAt\":null"))
    }

    @Test("hooks get AGGCTL_EVENT_* variables with the text as it is")
    func environment() {
        let variables = notification.environment
        #expect(variables["AGGCTL_EVENT_ID"] == "evt-0123456789abcdef")
        #expect(variables["AGGCTL_EVENT_ACCOUNT"] == "a\"b@example.com")
        #expect(variables["AGGCTL_EVENT_KIND"] == "depleted")
    }
}

struct RetryPolicyTests {
    @Test("waits double from 0.25 s, at most 2 s, each within 20% jitter")
    func delays() {
        let policy = RetryPolicy.standard
        for _ in 0..<200 {
            let waits = (1...5).map(policy.delay(after:))
            for (wait, base) in zip(waits, [0.25, 0.5, 1, 2, 2]) {
                #expect(wait >= base * 0.8 && wait <= base * 1.2)
            }
        }
    }

    /// Fails the first `failures` deliveries.
    final class Flaky: Notifier, @unchecked Sendable {
        let name = "flaky"
        var failures: Int
        var calls = 0

        init(failures: Int) {
            self.failures = failures
        }

        func deliver(_ notification: Notify.Notification) throws {
            calls += 1
            if calls <= failures { throw NotifierError("not yet \(calls)") }
        }
    }

    @Test("a backend is tried four times within a run, and the last failure is reported")
    func attempts() {
        let waits = TestLog()
        let policy = RetryPolicy(attempts: 4, initialDelay: 0.25, maximumDelay: 2, jitter: 0) { waits.append("\($0)") }
        let notification = NotificationTests().notification
        let recovers = Flaky(failures: 3)
        #expect(policy.deliver(notification, with: recovers) == nil)
        #expect(recovers.calls == 4)
        #expect(waits.entries == ["0.25", "0.5", "1.0"])
        let dead = Flaky(failures: 10)
        #expect(policy.deliver(notification, with: dead) == NotifierError("not yet 4"))
        #expect(dead.calls == 4)
    }
}

struct CommandNotifierTests {
    let root = TemporaryDirectory("aggctl-hook")
    /// The secrets aggctl declares (its own list is made from the registries in the command line).
    static let secrets = SecretEnvironment(
        names: [
            "AGGCTL_WEBHOOK_TOKEN", "AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "AWS_SESSION_TOKEN",
            "CLAUDE_CODE_OAUTH_TOKEN", "GH_TOKEN", "GITHUB_TOKEN",
        ], prefixes: ["AGGCTL_WEBDAV_"])

    func script(_ body: String) throws -> String {
        let path = try root.writeExecutable("hook.sh", "#!/bin/sh\n" + body)
        return path
    }

    @Test("the hook gets the caller's environment without secrets: WebDAV, webhook, cloud and agent tokens")
    func secretsStripped() throws {
        let out = root.file("env")
        let hook = try script("env > '\(out)'\n")
        let notifier = CommandNotifier(
            program: hook, runner: SpawnProcessRunner(),
            environment: [
                "PATH": "/usr/bin:/bin", "AGGCTL_WEBDAV_PASSWORD": "hunter2", "AGGCTL_WEBDAV_USER": "me", "KEEP": "yes",
                "AGGCTL_STORE": "https://me:s3cret@dav.example.org/aggctl/", "AGGCTL_WEBHOOK_TOKEN": "hook-tok",
                "AWS_SECRET_ACCESS_KEY": "aws-secret", "AWS_ACCESS_KEY_ID": "AKIAEXAMPLE",
                "AWS_SESSION_TOKEN": "sess-tok",
                "CLAUDE_CODE_OAUTH_TOKEN": "claude-tok", "GH_TOKEN": "gh-tok", "GITHUB_TOKEN": "gh-tok2",
            ], secrets: Self.secrets)
        try notifier.deliver(NotificationTests().notification)
        let env = try String(contentsOfFile: out, encoding: .utf8)
        #expect(!env.contains("hunter2") && !env.contains("AGGCTL_WEBDAV"))
        for secret in ["hook-tok", "aws-secret", "AKIAEXAMPLE", "sess-tok", "claude-tok", "gh-tok"] {
            #expect(!env.contains(secret), "\(secret) passed on")
        }
        #expect(env.contains("KEEP=yes"))
        #expect(env.contains("AGGCTL_STORE=https://dav.example.org/aggctl/") && !env.contains("s3cret"))
        #expect(env.contains("AGGCTL_EVENT_KIND=depleted"))
    }

    @Test("a hook gets none of the caller's descriptors but stdin, stdout and stderr")
    func noInheritedDescriptors() throws {
        // Opened without close-on-exec, as the state lock or another thread's pipe might be.
        let descriptor = open(root.file("held"), O_CREAT | O_RDWR, 0o600)
        defer { close(descriptor) }
        let out = root.file("fds")
        let hook = try script(
            "if [ -e /proc/self/fd/\(descriptor) ]; then echo held; else echo closed; fi > '\(out)'\n")
        let notifier = CommandNotifier(
            program: hook, runner: SpawnProcessRunner(), environment: [:], secrets: Self.secrets)
        try notifier.deliver(NotificationTests().notification)
        #if os(Linux)
            #expect(try String(contentsOfFile: out, encoding: .utf8) == "closed\n")
        #endif
    }

    @Test("a hook past its time limit is stopped and counts as failed")
    func timeout() throws {
        let hook = try script("sleep 30\n")
        let notifier = CommandNotifier(
            program: hook, runner: SpawnProcessRunner(), environment: ["PATH": "/usr/bin:/bin"], timeout: 0.3,
            secrets: Self.secrets)
        let started = Date()
        #expect(throws: NotifierError("hook '\(hook)' ran past 0 s and was stopped", timedOut: true)) {
            try notifier.deliver(NotificationTests().notification)
        }
        #expect(Date().timeIntervalSince(started) < 5)
    }

    @Test("a hook that times out is tried once in a run, not four times; its stderr line is cut")
    func timeoutNotRetried() throws {
        let log = root.file("runs")
        let hook = try script("echo run >> '\(log)'\nsleep 30\n")
        let waits = TestLog()
        let policy = RetryPolicy(attempts: 4, initialDelay: 0.25, maximumDelay: 2, jitter: 0) { waits.append("\($0)") }
        let notifier = CommandNotifier(
            program: hook, runner: SpawnProcessRunner(), environment: ["PATH": "/usr/bin:/bin"], timeout: 0.3,
            secrets: Self.secrets)
        #expect(policy.deliver(NotificationTests().notification, with: notifier)?.timedOut == true)
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "run\n")
        #expect(waits.entries.isEmpty)

        let chatty = try script("head -c 70000 /dev/zero | tr '\\0' x >&2\nexit 3\n")
        let failing = CommandNotifier(
            program: chatty, runner: SpawnProcessRunner(), environment: ["PATH": "/usr/bin:/bin"], timeout: 5,
            secrets: Self.secrets)
        let reason = try #require(policy.deliver(NotificationTests().notification, with: failing)?.reason)
        #expect(reason.count < 400, "\(reason.count) characters")
        #expect(reason.hasSuffix("xxx..."))
    }

    @Test("the time limit holds for an event larger than a pipe's buffer and a hook that never reads it")
    func largeEventUnreadInput() throws {
        let hook = try script("sleep 30\n")
        var notification = NotificationTests().notification
        notification.body = String(repeating: "x", count: 100_000)
        let notifier = CommandNotifier(
            program: hook, runner: SpawnProcessRunner(), environment: ["PATH": "/usr/bin:/bin"], timeout: 0.5,
            secrets: Self.secrets)
        let started = Date()
        // Past a pipe's 64 KiB and below the 128 KiB a single variable may hold (the body is one too).
        #expect(throws: NotifierError("hook '\(hook)' ran past 0 s and was stopped", timedOut: true)) {
            try notifier.deliver(notification)
        }
        #expect(Date().timeIntervalSince(started) < 5)
    }

    @Test("a hook reads the whole event on stdin, however large")
    func wholeEvent() throws {
        let out = root.file("stdin")
        let hook = try script("cat > '\(out)'\n")
        var notification = NotificationTests().notification
        notification.body = String(repeating: "y", count: 100_000)
        try CommandNotifier(program: hook, runner: SpawnProcessRunner(), environment: [:], secrets: Self.secrets)
            .deliver(notification)
        #expect(try String(contentsOfFile: out, encoding: .utf8) == notification.jsonLine + "\n")
    }

    @Test("a missing program is a clear error, not a crash")
    func missing() {
        let notifier = CommandNotifier(
            program: root.file("nope"), runner: SpawnProcessRunner(), environment: [:], secrets: Self.secrets)
        #expect(throws: NotifierError.self) { try notifier.deliver(NotificationTests().notification) }
    }
}
