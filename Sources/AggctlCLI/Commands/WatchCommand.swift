import Portable

/// `aggctl watch`: `check` every `--interval` seconds until SIGINT or SIGTERM.
enum WatchCommand {
    static let name: String = "watch"
    static let summary = "Run check every --interval seconds until interrupted (for a user service)."
    static let interval = FlagSpec.option("interval", "SECONDS", "seconds between checks (default 60)")
    static let flags = [interval] + CheckCommand.flags
    static let details = """
        On SIGINT or SIGTERM the check in progress finishes (deliveries and the state write), then watch
        exits 0. A store that cannot be read in one round is reported on stderr and tried again next round.
        """
    static let command = Command(name: name, summary: summary, flags: flags, details: details) { flags, context in
        try run(flags, context: context)
    }

    static func run(_ flags: ParsedFlags, context: RunContext) throws -> ExitStatus {
        let interval =
            try context.setting(Self.interval, flags: flags).map { setting -> TimeInterval in
                let seconds = try ValueParsers.seconds(setting)
                guard seconds >= 0.1 else {
                    throw UsageError(
                        "\(setting.source): '\(setting.value)' is too short; expected at least 0.1 seconds",
                        command: name)
                }
                return seconds
            } ?? 60
        // glibc gives each thread that allocates an arena of its own, and frees into them never return to
        // the system in full: the 16 read threads of an S3 round grew a `watch` by about 5 MB an hour in
        // steps. A service that runs for months keeps two.
        Allocator.limitArenas(to: 2)
        // A round's merge is freed when the round ends: keeping it until exit, as one-shot commands do to
        // save the time of freeing, would grow a service by a merge per round.
        var context = context
        context.keepUntilExit = { _ in }
        let setup = try CheckCommand.Setup(flags, context: context, command: name)
        let stop = StopSignal()
        defer { stop.cancel() }
        while !stop.isRequested {
            do {
                _ = try setup.runCycle()
            } catch let error as CommandFailure {
                // One bad round (a store away, a hook failing) is not the end: the next round tries again.
                context.console.fail(error.message)
            }
            stop.wait(interval)
        }
        return .success
    }
}
