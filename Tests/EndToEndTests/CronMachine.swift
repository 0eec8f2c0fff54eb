import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// One machine as `aggctl init --write` leaves it: a home of its own, and the real `crontab` writing into a
/// cron spool of the test's own (a private mount namespace binds it over /var/spool/cron/crontabs, so no
/// system crontab is touched). Its scheduled lines are run as cron runs them: `sh -c` with cron's
/// environment (HOME, LOGNAME, SHELL, PATH) and `--now` appended.
struct CronMachine {
    let name: String
    let home: String
    let spool: String
    /// Where the desktop's session bus is (`XDG_RUNTIME_DIR`), for a machine with a desktop.
    var runtime: String?
    /// Variables of the shell `init` runs in (the person's login shell), besides HOME and PATH.
    var shell: [String: String] = [:]

    static let binary = ReleaseBuild.available ? ReleaseBuild.binary : BinaryRun.binary
    static let cronSpool = "/var/spool/cron/crontabs"
    /// Whether this machine can run the real crontab in a mount namespace of its own.
    static let missing: [String] = {
        var missing = ["/usr/bin/crontab", "/usr/bin/unshare"].filter {
            !FileManager.default.isExecutableFile(atPath: $0)
        }
        if missing.isEmpty {
            let probe = try? BinaryRun.run(
                ["-m", "/bin/true"], environment: ["PATH": "/usr/bin:/bin"], executable: "/usr/bin/unshare")
            if probe?.status != 0 { missing.append("unshare -m (needs root)") }
        }
        if !FileManager.default.fileExists(atPath: cronSpool) { missing.append(cronSpool) }
        return missing
    }()
    /// Under CI a missing part is a failure, never a skip.
    static let runs = missing.isEmpty || ProcessInfo.processInfo.environment["CI"] == "true"

    init(_ name: String, in root: TemporaryDirectory) throws {
        self.name = name
        home = root.file(name)
        spool = root.file(name + "-cron")
        for folder in [home, spool] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
    }

    /// The login shell's environment.
    var environment: [String: String] {
        var environment = ["HOME": home, "PATH": "/usr/bin:/bin"].merging(shell) { $1 }
        if let runtime { environment["XDG_RUNTIME_DIR"] = runtime }
        return environment
    }

    /// `aggctl ARGUMENTS` in this machine's cron namespace (`init` reads and writes its crontab).
    func aggctl(_ arguments: [String]) throws -> BinaryRun {
        let script = "mount --bind \"$1\" \(Self.cronSpool) && shift && exec \"$@\""
        return try BinaryRun.run(
            ["-m", "/bin/sh", "-c", script, "sh", spool, Self.binary] + arguments, environment: environment,
            executable: "/usr/bin/unshare")
    }

    /// The crontab as cron keeps it.
    var crontab: String {
        let user = String(cString: getpwuid(getuid()).pointee.pw_name)
        return (try? String(contentsOfFile: spool + "/" + user, encoding: .utf8)) ?? ""
    }

    /// The commands of the crontab's every-minute lines, as cron hands them to `sh` (`\%` made `%`).
    var scheduled: [String] {
        crontab.split(separator: "\n").filter { $0.hasPrefix("* * * * * ") }.map {
            String($0.dropFirst("* * * * * ".count)).replacing("\\%", with: "%")
        }
    }

    /// The scheduled command whose last word is `job` (`publish`, `check`).
    func command(_ job: String) throws -> String {
        try #require(scheduled.first { $0.hasSuffix(" " + job) }, "\(name) schedules no \(job): \(crontab)")
    }

    /// What cron gives a job: the user's home, a login name, `sh`, a short PATH; nothing of the login shell.
    var cronEnvironment: [String: String] {
        ["HOME": home, "LOGNAME": "root", "SHELL": "/bin/sh", "PATH": "/usr/bin:/bin"]
    }

    /// Runs the scheduled `job` as cron would at `now`.
    func run(_ job: String, at now: String) throws -> BinaryRun {
        try BinaryRun.run(
            ["-c", try command(job) + " --now " + now], environment: cronEnvironment, executable: "/bin/sh")
    }

    /// Starts the scheduled `job` at `now` without waiting for it (its output to `log`).
    func start(_ job: String, at now: String, log: String) throws -> SpawnedProcess {
        let variables = cronEnvironment.map { "\($0.key)=\($0.value)" }
        return try SpawnedProcess(
            ["/usr/bin/env", "-i"] + variables + ["/bin/sh", "-c", try command(job) + " --now " + now], output: log)
    }
}

/// A desktop for a machine: a session bus at `RUNTIME/bus` (where logind puts it) and a notification
/// server on it that writes each `Notify` call to a log.
final class Desktop {
    let runtime: String
    let log: String
    private var processes: [SpawnedProcess] = []

    init(in root: TemporaryDirectory, name: String) throws {
        runtime = root.file(name + "-runtime")
        log = root.file(name + "-notifications.log")
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        try root.write(name + "-server.py", DesktopNotificationTests.server)
        let address = "unix:path=\(runtime)/bus"
        processes.append(
            try SpawnedProcess(
                ["/usr/bin/dbus-daemon", "--session", "--nofork", "--nopidfile", "--address=" + address],
                output: root.file(name + "-bus.out")))
        processes.append(
            try SpawnedProcess(
                [
                    "/usr/bin/env", "-i", "DBUS_SESSION_BUS_ADDRESS=" + address, "/usr/bin/python3",
                    root.file(name + "-server.py"), log,
                ], output: root.file(name + "-server.out")))
        // Until the server owns its name on the bus (the bus and the server start in a few milliseconds).
        let wait = """
            for i in $(seq 1 400); do
              gdbus call --session -d org.freedesktop.DBus -o /org/freedesktop/DBus \\
                -m org.freedesktop.DBus.NameHasOwner org.freedesktop.Notifications 2>/dev/null | grep -q true && exit 0
              sleep 0.05
            done
            exit 1
            """
        let ready = try BinaryRun.run(
            ["-c", wait], environment: ["PATH": "/usr/bin:/bin", "DBUS_SESSION_BUS_ADDRESS": address],
            executable: "/bin/sh")
        try #require(ready.status == 0, "the notification server did not start: \(ready.errors)")
    }

    /// The titles of the notifications shown, in order.
    var titles: [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            ((try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any])?["summary"] as? String
        }
    }

    deinit {
        for process in processes {
            kill(-process.pid, SIGKILL)
            process.waitForExit(timeout: 5)
        }
    }
}
