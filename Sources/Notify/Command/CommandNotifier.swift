import HTTP
import Portable

/// Runs a hook program for each event (`--notify command:/path/to/hook`).
///
/// The program runs without a shell: the event goes to its stdin as JSON and into `AGGCTL_EVENT_*`
/// variables, so text from records (an account name with `$(...)` in it) is only ever data. It gets the
/// caller's environment without secrets (`SecretEnvironment`). Success is exit status 0 within `timeout`
/// (60 s): a hook that runs longer is stopped and counts as failed.
public struct CommandNotifier: Notifier {
    public let program: String
    private let runner: any ProcessRunner
    private let environment: [String: String]
    private let timeout: TimeInterval

    public init(
        program: String, runner: any ProcessRunner, environment: [String: String], timeout: TimeInterval = 60,
        secrets: SecretEnvironment
    ) {
        self.program = program
        self.runner = runner
        self.environment = secrets.withoutSecrets(environment)
        self.timeout = timeout
    }

    public var name: String { "command:" + program }

    public func deliver(_ notification: Notification) throws {
        let outcome = try runner.run(
            program, arguments: [], environment: environment.merging(notification.environment) { $1 },
            input: Data(notification.jsonLine.utf8) + Data([0x0A]), timeout: timeout)
        if outcome.timedOut {
            throw NotifierError("hook '\(program)' ran past \(Int(timeout)) s and was stopped", timedOut: true)
        }
        guard outcome.status == 0 else {
            let detail = outcome.firstErrorLine.map { ": \($0)" } ?? ""
            throw NotifierError("hook '\(program)' exited with status \(outcome.status)\(detail)")
        }
    }
}
