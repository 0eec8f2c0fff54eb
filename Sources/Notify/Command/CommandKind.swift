import Portable

/// `--notify command:/path/to/hook`: a program run without a shell for each event.
public struct CommandKind: NotifierKind {
    public init() {}
    public let name = "command"
    public let form = "command:/path/to/hook"
    public let summary = "runs the program without a shell, the event as JSON on stdin and in AGGCTL_EVENT_* variables"

    public func make(argument: String?, context: NotifierContext) throws -> any Notifier {
        let program = argument ?? ""
        guard program.hasPrefix("/"), FileManager.default.isExecutableFile(atPath: program) else {
            throw NotifierSpecError(
                "--notify: '\(program)' is not an executable file given by its full path; expected command:/path/to/hook"
            )
        }
        return CommandNotifier(
            program: program, runner: context.processRunner, environment: context.environment, secrets: context.secrets)
    }
}
