import Notify
import Portable

/// Where `aggctl init` puts the schedule: one kind per scheduler, tried in `Schedulers.detect`'s order.
protocol Scheduler {
    /// "systemd user timers", "your crontab".
    var name: String { get }
    /// What would be installed, as lines to print.
    func preview(_ jobs: ScheduledJobs) throws(UnschedulableValue) -> [String]
    /// Installs `jobs`, replacing what an earlier `init` installed.
    /// - Throws: `CommandFailure` naming what failed.
    func install(_ jobs: ScheduledJobs) throws -> ScheduleInstall
}

/// What installing a schedule did.
struct ScheduleInstall {
    /// Whether anything changed (else it was installed as it is already).
    var changed: Bool
    /// What the person should know of what was there: a hand-written line that runs aggctl too.
    var warnings: [String] = []
}

enum Schedulers {
    /// The scheduler this machine runs for its user: systemd's user manager when one answers, else cron
    /// when `crontab` is there; nil when neither is.
    static func detect(environment: [String: String], home: String, runner: SpawnProcessRunner) -> (any Scheduler)? {
        if let systemctl = FileSystem.program("systemctl", in: environment),
            let outcome = try? runner.run(
                systemctl, arguments: ["--user", "show-environment"], environment: environment, input: Data(),
                timeout: 10),
            outcome.status == 0, !outcome.timedOut
        {
            let base = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
            return SystemdUserScheduler(
                systemctl: systemctl, unitFolder: base + "/systemd/user", environment: environment, runner: runner)
        }
        if let crontab = FileSystem.program("crontab", in: environment) {
            return CronScheduler(crontab: crontab, environment: environment, runner: runner)
        }
        return nil
    }

    /// Runs `program` or fails naming what it said.
    static func run(
        _ program: String, _ arguments: [String], input: Data = Data(), environment: [String: String],
        runner: SpawnProcessRunner
    ) throws -> (outcome: ProcessOutcome, output: Data) {
        let shown = ([program] + arguments).joined(separator: " ")
        let result: (outcome: ProcessOutcome, output: Data)
        do {
            result = try runner.runCapturingOutput(
                program, arguments: arguments, environment: environment, input: input, timeout: 30)
        } catch let error as NotifierError {
            throw CommandFailure("\(shown): \(error.reason)")
        }
        if result.outcome.timedOut { throw CommandFailure("\(shown) did not finish within 30 s") }
        return result
    }
}

/// The user's crontab, through `crontab -l` and `crontab -`: aggctl's lines between two markers, the
/// rest kept as it was.
struct CronScheduler: Scheduler {
    let name = "your crontab"
    var crontab: String
    var environment: [String: String]
    var runner: SpawnProcessRunner

    func preview(_ jobs: ScheduledJobs) throws(UnschedulableValue) -> [String] {
        try jobs.crontabBlock()
    }

    func install(_ jobs: ScheduledJobs) throws -> ScheduleInstall {
        let block: [String]
        do {
            block = try jobs.crontabBlock()
        } catch {
            throw CommandFailure("cannot schedule: \(error.message)")
        }
        let listed = try Schedulers.run(crontab, ["-l"], environment: environment, runner: runner)
        var existing = ""
        if listed.outcome.status == 0 {
            existing = String(decoding: listed.output, as: UTF8.self)
        } else if !(listed.outcome.firstErrorLine ?? "").lowercased().contains("no crontab") {
            throw CommandFailure(
                "crontab -l exited with status \(listed.outcome.status)"
                    + (listed.outcome.firstErrorLine.map { ": \($0)" } ?? ""))
        }
        let updated = CrontabText.replacingBlock(in: existing, with: block)
        var warnings: [String] = []
        let others = CrontabText.otherAggctlLines(in: updated)
        if !others.isEmpty {
            warnings.append(
                "your crontab also runs aggctl on line(s) \(others.map(String.init).joined(separator: ", ")), outside "
                    + "init's lines: remove them, or this machine publishes and alerts twice")
        }
        if updated == existing { return ScheduleInstall(changed: false, warnings: warnings) }
        let written = try Schedulers.run(
            crontab, ["-"], input: Data(updated.utf8), environment: environment, runner: runner)
        guard written.outcome.status == 0 else {
            throw CommandFailure(
                "crontab - exited with status \(written.outcome.status)"
                    + (written.outcome.firstErrorLine.map { ": \($0)" } ?? "") + "; your crontab is as it was")
        }
        return ScheduleInstall(changed: true, warnings: warnings)
    }
}

/// systemd user timers: a service and a timer per job in the user's unit folder, enabled and started.
struct SystemdUserScheduler: Scheduler {
    let name = "systemd user timers"
    var systemctl: String
    var unitFolder: String
    var environment: [String: String]
    var runner: SpawnProcessRunner

    func preview(_ jobs: ScheduledJobs) throws(UnschedulableValue) -> [String] {
        try jobs.systemdUnits().flatMap { unit in
            ["\(unitFolder)/\(unit.name):"]
                + unit.text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { "    " + $0 }
        }
    }

    func install(_ jobs: ScheduledJobs) throws -> ScheduleInstall {
        let units: [(name: String, text: String)]
        do {
            units = try jobs.systemdUnits()
        } catch {
            throw CommandFailure("cannot schedule: \(error.message)")
        }
        var changed = false
        do {
            try FileSystem.createFolders(unitFolder)
            for unit in units {
                let path = unitFolder + "/" + unit.name
                if FileSystem.contents(of: path) == Data(unit.text.utf8) { continue }
                try AtomicFile.write(Data(unit.text.utf8), to: path, mode: 0o644)
                changed = true
            }
        } catch {
            throw CommandFailure("cannot write the units in '\(unitFolder)': \(error.reason)")
        }
        let timers = units.map(\.name).filter { $0.hasSuffix(".timer") }
        for arguments in [["--user", "daemon-reload"], ["--user", "enable", "--now"] + timers] {
            let result = try Schedulers.run(systemctl, arguments, environment: environment, runner: runner)
            guard result.outcome.status == 0 else {
                throw CommandFailure(
                    "systemctl \(arguments.joined(separator: " ")) exited with status \(result.outcome.status)"
                        + (result.outcome.firstErrorLine.map { ": \($0)" } ?? ""))
            }
        }
        return ScheduleInstall(changed: changed)
    }
}
