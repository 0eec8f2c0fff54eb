import Portable

/// The command line: picks the command, parses its flags, runs it, and maps every error to an exit code.
/// The one place where errors become exit codes and messages.
public enum Aggctl {
    static let version = "0.1.0"

    /// The command table, by name: a command is built (its flags, their choices, its help) only when it
    /// runs or a listing asks for all of them; building all fifteen was 2.25 M of the 3.65 M instructions
    /// of `aggctl --version`.
    static let table: [(name: String, command: @Sendable () -> Command)] = [
        (PublishCommand.name, { PublishCommand.command }), (StatusCommand.name, { StatusCommand.command }),
        (DevicesCommand.name, { DevicesCommand.command }), (CheckCommand.name, { CheckCommand.command }),
        (WatchCommand.name, { WatchCommand.command }), (ReportCommand.name, { ReportCommand.command }),
        (ExportCommand.name, { ExportCommand.command }), (ServeCommand.name, { ServeCommand.command }),
        (StatuslineCommand.name, { StatuslineCommand.command }), (InitCommand.name, { InitCommand.command }),
        (KeyCommand.name, { KeyCommand.command }), (DoctorCommand.name, { DoctorCommand.command }),
        (ConfigCommand.name, { ConfigCommand.command }), (CompletionsCommand.name, { CompletionsCommand.command }),
        (ManpageCommand.name, { ManpageCommand.command }), (PricesCommand.name, { PricesCommand.command }),
        (CostCommand.name, { CostCommand.command }),
    ]

    /// Every command, built: for the help, the completions and the manual page.
    static var commands: [Command] { table.map { $0.command() } }

    /// The command named `name`, built.
    static func command(named name: String) -> Command? {
        table.first { $0.name == name }?.command()
    }

    static var help: String {
        var text = """
            aggctl \(version): merge AI coding-agent usage limits from every machine you work on.

            usage: aggctl <command> [flags]

            commands:

            """
        let width = (commands.map(\.name.count).max() ?? 0) + 2
        for command in commands {
            text += "  " + command.name.padded(to: width) + command.summary + "\n"
        }
        text += """

            Run 'aggctl <command> --help' for a command's flags.
            Exit codes: 0 success, 1 the run failed, 2 usage error.

            """
        return text
    }

    /// Runs `aggctl` with `arguments` (without the program name) and returns the exit status.
    ///
    /// Output that did not arrive fails the run (exit 1), so `status --json > file` on a full disk never
    /// leaves a short file behind a success; a reader that went away (`status | head`) is a normal end.
    static func run(_ arguments: [String], context: RunContext) -> ExitStatus {
        let status = dispatch(arguments, context: context)
        if promisesSuccess(arguments) { return .success }
        // A run that failed already said why (`check` names the event that stays queued).
        if status == .success, let failure = context.console.output.failure.map(OutputFailure.init),
            !failure.isClosedPipe
        {
            context.console.fail("cannot write to standard output: \(failure)")
            return .failure
        }
        return status
    }

    private static func dispatch(_ arguments: [String], context: RunContext) -> ExitStatus {
        let console = context.console
        do {
            guard let first = arguments.first else {
                console.errors.write(help)
                return .usage
            }
            switch first {
            case "--help", "-h", "help":
                console.output.write(help)
                return .success
            case "--version", "-V":
                console.print("aggctl \(version)")
                return .success
            default:
                break
            }
            guard let command = command(named: first) else {
                if first.hasPrefix("-") {
                    throw UsageError("unknown flag '\(first)'; expected a command first (see 'aggctl --help')")
                }
                if let nearest = NearestName.of(first, among: table.map(\.name)) {
                    throw UsageError("unknown command '\(first)'; did you mean '\(nearest)'?")
                }
                throw UsageError(
                    "unknown command '\(first)'; commands: \(table.map(\.name).joined(separator: ", "))")
            }
            let flags = try ParsedFlags.parse(
                ArgumentLexer.tokens(Array(arguments.dropFirst())), specs: command.flags, command: command.name,
                takesArgument: command.takesArgument, maximumArguments: command.maximumArguments)
            if flags.wantsHelp {
                console.output.write(command.help)
                return .success
            }
            var context = context
            context.configuration = try Configuration.load(path: context.configFile, home: context.home)
            if command.flags.contains(where: { $0.name == CommonFlags.keyFile.name }) {
                context.sealing = try KeyRing.from(flags, context: context, command: command.name)
            }
            return try command.run(flags, context)
        } catch let error as UsageError {
            let hint = error.command.map { " (see 'aggctl \($0) --help')" } ?? ""
            console.fail(error.message + hint)
            return .usage
        } catch let error as CommandFailure {
            console.fail(error.message)
            return .failure
        } catch {
            console.fail("\(error)")
            return .failure
        }
    }
}

extension Aggctl {
    /// Runs one command line as the process does: the real console, clock and environment.
    ///
    /// - Parameters:
    ///   - closedOutput: stdout was closed when the process started (its writes all fail).
    ///   - closedErrors: the same for stderr.
    /// Whether the command `arguments` name exits 0 whatever happens (`Command.alwaysSucceeds`), its
    /// last write on closing stdout included.
    public static func promisesSuccess(_ arguments: [String]) -> Bool {
        guard let first = arguments.first, !first.hasPrefix("-") else { return false }
        return command(named: first)?.alwaysSucceeds ?? false
    }

    public static func runProcess(
        _ arguments: [String], environment: [String: String], closedOutput: Bool, closedErrors: Bool
    ) -> ExitStatus {
        run(
            arguments,
            context: .standard(environment: environment, closedOutput: closedOutput, closedErrors: closedErrors))
    }
}
