import Collectors
import Portable
import TextSafety

/// What `aggctl init` schedules on this machine: `publish` and `check`, every minute, with the few
/// variables of this shell a scheduled run needs to find the same files (docs/init.md).
struct ScheduledJobs: Equatable {
    /// One command run every minute.
    struct Job: Equatable {
        /// `publish`, `check`: the unit's and the line's name.
        var name: String
        /// What the job does, for the unit's description and the crontab's comment.
        var purpose: String
        /// The arguments after the binary.
        var arguments: [String]
        /// Variables set for it, in order.
        var environment: [Variable]
    }

    struct Variable: Equatable {
        var name: String
        var value: String
    }

    /// The binary every job runs: the one `init` runs as.
    var binary: String
    var jobs: [Job]

    /// Variables a scheduled run sees as this shell does, when this shell sets them: where the config,
    /// the state and the agents' files are, the zone alerts are written in, the store's non-secret
    /// settings. Never a secret: those stay where the agent or the AWS tools keep them (`~/.aws`,
    /// `~/.netrc`), and a schedule line or unit file is no place for one.
    static let carriedVariables = [
        "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "TZ", "CODEX_HOME", "CLAUDE_CONFIG_DIR",
        "GEMINI_CLI_HOME", "GH_CONFIG_DIR", "AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL",
        "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "AGGCTL_CA_FILE", "AGGCTL_HTTP_TIMEOUT",
    ]

    /// The usage answers' base URLs the collectors read (`AGGCTL_<ID>_API_URL`): a proxy or gateway this
    /// shell names is the schedule's too.
    static let carriedPattern = (prefix: "AGGCTL_", suffix: "_API_URL")

    /// `publish` (when there is anything to publish) and `check`, with what they need of `environment`.
    /// `check` also gets `XDG_RUNTIME_DIR` when the desktop's session bus is there: cron gives a job no
    /// session, and the bus socket in that folder is how `notify-send` reaches the desktop.
    static func standard(binary: String, publishes: Bool, environment: [String: String]) -> ScheduledJobs {
        var carried = carriedVariables.compactMap { name in
            environment[name].flatMap { $0.isEmpty ? nil : Variable(name: name, value: $0) }
        }
        carried += environment.keys.sorted().filter {
            $0.hasPrefix(carriedPattern.prefix) && $0.hasSuffix(carriedPattern.suffix)
                && $0.count > carriedPattern.prefix.count + carriedPattern.suffix.count
                && !(environment[$0] ?? "").isEmpty
        }.map { Variable(name: $0, value: environment[$0]!) }
        var checkEnvironment = carried
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/"), FileSystem.exists(runtime + "/bus") {
            checkEnvironment.append(Variable(name: "XDG_RUNTIME_DIR", value: runtime))
        }
        var jobs: [Job] = []
        if publishes {
            jobs.append(
                Job(
                    name: "publish", purpose: "Publish this machine's AI agent usage into the shared store",
                    arguments: ["publish"], environment: carried))
        }
        jobs.append(
            Job(
                name: "check", purpose: "Alert once when an AI agent quota runs out or comes back",
                arguments: ["check"], environment: checkEnvironment))
        return ScheduledJobs(binary: binary, jobs: jobs)
    }
}

/// Why a value cannot be written into a schedule.
struct UnschedulableValue: Error {
    var message: String
}

extension ScheduledJobs {
    /// The crontab lines, between the markers `init` finds them by again.
    func crontabBlock() throws(UnschedulableValue) -> [String] {
        var lines = [CrontabText.begin]
        for job in jobs {
            var words = try job.environment.map { variable throws(UnschedulableValue) in
                variable.name + "=" + (try CrontabText.quoted(variable.value))
            }
            words.append(try CrontabText.quoted(binary))
            words += try job.arguments.map { argument throws(UnschedulableValue) in try CrontabText.quoted(argument) }
            lines.append("# \(job.purpose), every minute.")
            lines.append("* * * * * " + words.joined(separator: " "))
        }
        lines.append(CrontabText.end)
        return lines
    }

    /// The systemd user units, by file name: a oneshot service and a minutely timer per job.
    func systemdUnits() throws(UnschedulableValue) -> [(name: String, text: String)] {
        var units: [(name: String, text: String)] = []
        for job in jobs {
            // systemd refuses these in a program's own path ("Executable name contains special characters").
            guard !binary.contains(where: { "$\\'\"`".contains($0) }) else {
                throw UnschedulableValue(
                    message:
                        "'\(SafeText.line(binary))' holds one of $ \\ ' \" `, which systemd refuses in a program's "
                        + "path; install aggctl elsewhere (script/install puts it in ~/.local/bin)")
            }
            let command = try
                ([SystemdText.quoted(binary, expandsVariables: false)]
                + job.arguments.map {
                    word throws(UnschedulableValue) in try SystemdText.quoted(word)
                }).joined(separator: " ")
            var service = """
                # Written by `aggctl init --write`; running it again rewrites this file.
                [Unit]
                Description=\(job.purpose) (aggctl)

                [Service]
                Type=oneshot
                ExecStart=\(command)

                """
            for variable in job.environment {
                let assignment = variable.name + "=" + variable.value
                service += "Environment=\(try SystemdText.quoted(assignment, expandsVariables: false))\n"
            }
            units.append(("aggctl-\(job.name).service", service))
            units.append(
                (
                    "aggctl-\(job.name).timer",
                    """
                    # Written by `aggctl init --write`; running it again rewrites this file.
                    [Unit]
                    Description=\(job.purpose), every minute (aggctl)

                    [Timer]
                    OnCalendar=minutely
                    AccuracySec=5s

                    [Install]
                    WantedBy=timers.target

                    """
                ))
        }
        return units
    }
}

/// A crontab's own text rules.
enum CrontabText {
    static let begin = "# >>> aggctl init: these lines are rewritten by `aggctl init --write` >>>"
    static let end = "# <<< aggctl init <<<"

    /// What `sh` reads as itself, unquoted.
    static let plainCharacters = Set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:@%+,-".unicodeScalars)

    /// `value` for `sh`, in single quotes unless it is plain, with cron's `%` (a newline to cron) escaped. A line break
    /// cannot be written on one crontab line at all.
    static func quoted(_ value: String) throws(UnschedulableValue) -> String {
        guard !value.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\0" }) else {
            throw UnschedulableValue(
                message: "'\(SafeText.line(value))' holds a line break, which a crontab line cannot")
        }
        let plain = !value.isEmpty && value.unicodeScalars.allSatisfy { Self.plainCharacters.contains($0) }
        let quoted = plain ? value : "'" + value.replacing("'", with: "'\\''") + "'"
        return quoted.replacing("%", with: "\\%")
    }

    /// `existing` with its aggctl block replaced by `block` (or `block` added at its end); the rest of the
    /// user's crontab kept as it was.
    static func replacingBlock(in existing: String, with block: [String]) -> String {
        var kept: [Substring] = []
        var inside = false
        var insertAt: Int?
        for line in existing.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == begin {
                inside = true
                insertAt = insertAt ?? kept.count
                continue
            }
            if inside {
                if line == end { inside = false }
                continue
            }
            kept.append(line)
        }
        while kept.last?.isEmpty == true { kept.removeLast() }
        var lines = kept.map(String.init)
        let at = min(insertAt ?? lines.count, lines.count)
        lines.insert(contentsOf: block, at: at)
        return lines.joined(separator: "\n") + "\n"
    }

    /// The numbers of the lines outside the aggctl block that run aggctl too: a hand-written line would
    /// publish or alert a second time.
    static func otherAggctlLines(in existing: String) -> [Int] {
        var inside = false
        var found: [Int] = []
        for (index, line) in existing.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line == begin { inside = true }
            if !inside, !line.hasPrefix("#"), line.contains("aggctl ") || line.hasSuffix("aggctl") {
                found.append(index + 1)
            }
            if line == end { inside = false }
        }
        return found
    }
}

/// systemd's unit-file quoting (systemd.syntax(7), systemd.service(5) "Command lines").
enum SystemdText {
    /// What systemd reads as itself, unquoted.
    static let plainCharacters = Set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:@+,=-".unicodeScalars)

    /// `value` in double quotes, with `\` and `"` escaped, `%` written `%%` (a specifier otherwise) and,
    /// where the setting expands variables (`ExecStart=`, not `Environment=`), `$` written `$$`.
    static func quoted(_ value: String, expandsVariables: Bool = true) throws(UnschedulableValue) -> String {
        guard !value.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\0" }) else {
            throw UnschedulableValue(message: "'\(SafeText.line(value))' holds a line break, which a unit file cannot")
        }
        let plain = !value.isEmpty && value.unicodeScalars.allSatisfy { SystemdText.plainCharacters.contains($0) }
        if plain { return value }
        var out = "\""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "%": out += "%%"
            case "$" where expandsVariables: out += "$$"
            default: out.append(character)
            }
        }
        return out + "\""
    }
}
