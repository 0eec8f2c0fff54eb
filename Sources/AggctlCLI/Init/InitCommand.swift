import Collectors
import Notify
import Portable
import Stores

/// `aggctl init --store S [--notify SPEC]... [--write]`: what this machine should run, and with `--write`
/// the config file and the schedule that run it (docs/init.md).
enum InitCommand {
    static let name = "init"
    static let summary =
        "Find this machine's agents, and print (with --write: write and install) the config and the schedule."
    static let notify = FlagSpec.option(
        "notify", "SPEC", repeatable: true, choices: NotifierRegistry.standard.choices,
        "a backend for check's alerts, written as 'notify' lines (with 'desktop' too where this machine has one)")
    static let write = FlagSpec.toggle(
        "write", "write the config file and install the schedule (systemd user timers, else crontab); safe to repeat")
    static let flags = [CommonFlags.store, notify, write]
    static let details = """
        Without --write nothing is written: the survey, the config and the schedule are printed. With it, the \
        config file gets the store, one 'source' line per agent found and the given 'notify' lines (its other \
        lines are kept), and the schedule runs `publish` and `check` every minute with this shell's \
        XDG_CONFIG_HOME, XDG_STATE_HOME, TZ and agent folders. Running it again replaces what it wrote before. \
        Exit 1 when the schedule cannot be installed (the config is written first).
        """

    static let command = Command(name: name, summary: summary, flags: flags, details: details) { flags, context in
        try run(flags, context: context)
    }

    static func run(_ flags: ParsedFlags, context: RunContext) throws -> ExitStatus {
        let location = try context.storeLocation(flags, command: name)
        // The text the store was given as (a URL keeps its user and form); `storeLocation` threw without one.
        let given = context.setting(CommonFlags.store, flags: flags, environmentName: "AGGCTL_STORE")?.value
        let store = storeValue(location, given: given ?? location.displayName)
        let notifySpecs = flags.all(notify)
        // Made once to refuse a bad backend before anything is written; the specs are what is kept.
        _ = try CheckCommand.notifiers(notifySpecs, context: context)
        let environment = context.environment
        let desktop = DesktopNotifier.helperPath(in: environment) != nil
        let survey = CollectorRegistry.standard.kinds.map { ($0, $0.presence(environment: environment)) }
        let found = Set(survey.filter(\.1.found).map(\.0.name))
        let asked = Set(survey.filter { found.contains($0.0.name) }.flatMap(\.0.asks))
        let sources = survey.map(\.0.name).filter { found.contains($0) && !asked.contains($0) }
        var settings: [(key: String, values: [String])] = [("store", [store]), ("source", sources)]
        if !notifySpecs.isEmpty {
            settings.append(("notify", (desktop && !notifySpecs.contains("desktop") ? ["desktop"] : []) + notifySpecs))
        }
        let runner = SpawnProcessRunner()
        let scheduler = Schedulers.detect(environment: environment, home: context.home, runner: runner)
        let jobs = ScheduledJobs.standard(
            binary: executablePath() ?? "aggctl", publishes: !sources.isEmpty, environment: environment)

        let console = context.console
        console.print("This machine (\(context.hostName())):")
        for (kind, presence) in survey {
            let mark = presence.found ? (asked.contains(kind.name) ? "asked" : "yes") : "no"
            let asker = survey.first { $0.0.asks.contains(kind.name) }?.0.name ?? ""
            let detail =
                asked.contains(kind.name) && presence.found ? presence.detail + ": \(asker) asks it" : presence.detail
            console.print("  " + kind.name.padded(to: 13) + mark.padded(to: 7) + detail)
        }
        console.print(
            "  " + "desktop".padded(to: 13) + (desktop ? "yes" : "no").padded(to: 7)
                + (desktop ? "notify-send and a session bus: check notifies here" : "no desktop notifications here"))
        let configText: String
        let existing = FileSystem.contents(of: context.configFile).map { String(decoding: $0, as: UTF8.self) }
        do {
            configText = try ConfigFileText.updating(existing, with: settings)
        } catch {
            throw UsageError("cannot write the config: \(error.message)", command: name)
        }
        console.print("")
        console.print("Config \(context.configFile)\(existing == nil ? " (new)" : ""):")
        for (key, values) in settings {
            for value in values { console.print("  \(key) = \(Configuration.shown(value, key: key))") }
        }
        if sources.isEmpty {
            console.print("  (no agent found here: this machine only checks; run init again once one is installed)")
        }
        console.print("")
        guard let scheduler else {
            console.print("Schedule: no systemd user manager answers and no crontab is installed here. Run these")
            console.print("every minute from the scheduler you have:")
            for line in (try? jobs.crontabBlock()) ?? [] { console.print("  " + line) }
            if flags.isSet(write) {
                try writeConfig(configText, existing: existing, context: context)
                throw CommandFailure(
                    "the config is written, but no scheduler was found: install cron (apt install cron)")
            }
            return .success
        }
        console.print("Schedule (\(scheduler.name)), every minute:")
        do {
            for line in try scheduler.preview(jobs) { console.print("  " + line) }
        } catch {
            throw UsageError("cannot schedule: \(error.message)", command: name)
        }
        if notifySpecs.isEmpty, context.configuration.settings("notify").isEmpty {
            console.print("")
            console.print(
                "Alerts go to " + (desktop ? "this desktop" : "check's output (cron mails it)")
                    + "; for a phone too: --notify ntfy:https://ntfy.sh/YOUR-TOPIC (docs/alerts.md).")
        }
        guard flags.isSet(write) else {
            console.print("")
            console.print("Nothing written. Run it again with --write to write the config and install the schedule.")
            return .success
        }
        console.print("")
        try writeConfig(configText, existing: existing, context: context)
        let installed = try scheduler.install(jobs)
        console.print(installed.changed ? "Installed the schedule in \(scheduler.name)." : "The schedule is as it was.")
        for warning in installed.warnings { console.warn(warning) }
        return .success
    }

    /// The store as the config file keeps it: a folder as an absolute path (a schedule runs in the home
    /// folder), a URL as given.
    static func storeValue(_ location: StoreLocation, given: String) -> String {
        guard case .folder(let path) = location.target, !path.hasPrefix("/") else { return given }
        return FileManager.default.currentDirectoryPath + "/" + path
    }

    static func writeConfig(_ text: String, existing: String?, context: RunContext) throws {
        if text == existing {
            context.console.print("The config '\(context.configFile)' is as it was.")
            return
        }
        do {
            // Private (0600, its folder 0700 when made): a notify line may hold a webhook's secret path.
            try AtomicFile.writePrivate(Data(text.utf8), to: context.configFile)
        } catch {
            throw CommandFailure("cannot write the config '\(context.configFile)': \(error.reason)")
        }
        context.console.print("Wrote the config '\(context.configFile)'.")
    }

    /// The running binary's path: what the schedule runs.
    static func executablePath() -> String? {
        #if os(Linux)
            var buffer = [CChar](repeating: 0, count: 4096)
            let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
            guard count > 0 else { return nil }
            return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #else
            var size: UInt32 = 4096
            var buffer = [CChar](repeating: 0, count: Int(size))
            guard _NSGetExecutablePath(&buffer, &size) == 0 else { return nil }
            return String(cString: buffer)
        #endif
    }
}
