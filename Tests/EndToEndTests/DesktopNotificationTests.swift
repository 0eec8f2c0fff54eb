import Foundation
import Snapshots
import TestSupport
import Testing

/// Real desktop notifications without a display: a private D-Bus session and a small notification
/// server that records every `Notify` call, with `aggctl check` running inside that session.
struct DesktopNotificationTests {
    static let tools = ["/usr/bin/dbus-run-session", "/usr/bin/notify-send", "/usr/bin/gdbus", "/usr/bin/python3"]
    static let missing: [String] = {
        var missing = tools.filter { !FileManager.default.isExecutableFile(atPath: $0) }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        probe.arguments = ["-c", "import dbus, gi"]
        probe.standardError = FileHandle.nullDevice
        if (try? probe.run()) == nil {
            missing.append("python3")
        } else {
            probe.waitUntilExit()
            if probe.terminationStatus != 0 { missing.append("python3-dbus/python3-gi") }
        }
        return missing
    }()
    /// Under CI a missing tool is a failure, never a skip.
    static let runs = missing.isEmpty || ProcessInfo.processInfo.environment["CI"] == "true"

    static let server = """
        import dbus, dbus.service, dbus.mainloop.glib, json, sys
        from gi.repository import GLib

        dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
        log = sys.argv[1]

        class Server(dbus.service.Object):
            @dbus.service.method("org.freedesktop.Notifications", in_signature="susssasa{sv}i", out_signature="u")
            def Notify(self, app, replaces, icon, summary, body, actions, hints, timeout):
                with open(log, "a") as f:
                    f.write(json.dumps({"app": str(app), "summary": str(summary), "body": str(body),
                                        "urgency": int(hints.get("urgency", 1)),
                                        "id": str(hints.get("x-aggctl-event-id", ""))}) + "\\n")
                return 1

            @dbus.service.method("org.freedesktop.Notifications", out_signature="as")
            def GetCapabilities(self):
                return ["body"]

            @dbus.service.method("org.freedesktop.Notifications", out_signature="ssss")
            def GetServerInformation(self):
                return ("aggctl-test", "aggctl", "1", "1.2")

            @dbus.service.method("org.freedesktop.Notifications", in_signature="u")
            def CloseNotification(self, notification):
                pass

        bus = dbus.SessionBus()
        name = dbus.service.BusName("org.freedesktop.Notifications", bus, do_not_queue=True)
        Server(bus, "/org/freedesktop/Notifications")
        GLib.MainLoop().run()
        """

    @Test(
        "a depleted event reaches the desktop notification service with title, body (markup as text) and critical urgency",
        .enabled(if: runs, "needs dbus-run-session, notify-send, gdbus and python3-dbus/gi: \(missing)"))
    func depletedOnTheDesktop() throws {
        try #require(Self.missing.isEmpty, "missing under CI: \(Self.missing); script/bootstrap installs them")
        let root = TemporaryDirectory("aggctl-desktop")
        let entry = Records.entry(
            email: "o'brien \"$(x)\"<a href='http://evil.test'>&<img src=x>@example.com", at: "2026-11-30T12:00:00Z",
            sessionUsed: 100,
            resetsAt: "2026-11-30T15:00:00Z")
        try root.write(
            "store/laptop.json", Records.json(Records.snapshot("laptop", generatedAt: "2026-11-30T12:00:00Z", [entry])))
        try root.write("server.py", Self.server)
        let log = root.file("notifications.log")
        let script = """
            /usr/bin/python3 "$1/server.py" "$1/notifications.log" > "$1/server.out" 2>&1 &
            server=$!
            trap 'kill -9 $server 2>/dev/null' EXIT
            for i in $(seq 1 200); do
              gdbus call --session -d org.freedesktop.DBus -o /org/freedesktop/DBus \\
                -m org.freedesktop.DBus.NameHasOwner org.freedesktop.Notifications 2>/dev/null | grep -q true && break
              sleep 0.05
            done
            "$0" check --store "$1/store" --now 2026-11-30T12:00:30Z --notify desktop; first=$?
            rm -rf "$XDG_STATE_HOME"
            "$0" check --store "$1/store" --now 2026-11-30T12:00:30Z; second=$?
            echo "$first $second"
            """
        // Started through a launcher that clears the signal mask: this test's thread blocks signals, children
        // inherit that, and a bus daemon that cannot hear SIGTERM outlives its session.
        let launcher =
            "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); "
            + "signal.signal(signal.SIGPIPE, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])"
        let run = try BinaryRun.run(
            ["-c", launcher, "/usr/bin/dbus-run-session", "--", "/bin/sh", "-c", script, BinaryRun.binary, root.path],
            environment: ["PATH": "/usr/bin:/bin", "HOME": root.path, "XDG_STATE_HOME": root.file("state")],
            executable: "/usr/bin/python3", timeout: 60)
        #expect(
            run.output.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("0 0"), "\(run.output)\n\(run.errors)")
        let calls = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
        // Once with --notify desktop, once more by default (the desktop is reachable), state started over.
        #expect(calls.count == 2, "\(run.errors)")
        for call in calls {
            #expect(call["app"] as? String == "aggctl")
            #expect(call["summary"] as? String == "Claude session depleted")
            #expect((call["body"] as? String)?.hasPrefix("0% left. Will notify when it's available again.") == true)
            // Shown as written, and as text: notification servers render body markup.
            let body = call["body"] as? String ?? ""
            #expect(
                body.contains("o'brien \"$(x)\"&lt;a href='http://evil.test'&gt;&amp;&lt;img src=x&gt;@example.com"))
            #expect(!body.contains("<"), "\(body)")
            #expect(call["urgency"] as? Int == 2)
            #expect((call["id"] as? String)?.hasPrefix("evt-") == true)
        }
    }
}
