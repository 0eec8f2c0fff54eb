import Portable
import TextSafety

/// A notification on the desktop: the freedesktop notification service on Linux (through `notify-send`),
/// the notification centre on macOS (through `osascript`).
///
/// Texts travel as program arguments, never inside a script or a shell command line, so an account name
/// with quotes or `$(...)` in it is shown as written. On Linux the app name is `aggctl`, depleted events
/// are sent with critical urgency, and the body's `&`, `<` and `>` go as entities: notification servers
/// render a subset of HTML in bodies, and a record's `<a href>` or `<img>` must stay text.
public struct DesktopNotifier: Notifier {
    public let name = "desktop"
    public var isPersonFacing: Bool { true }
    private let runner: any ProcessRunner
    private let environment: [String: String]
    private let helper: String

    /// - Parameter helper: `notify-send` (Linux) or `osascript` (macOS), found by `helperPath(in:)`.
    public init(
        helper: String, runner: any ProcessRunner, environment: [String: String],
        secrets: SecretEnvironment
    ) {
        self.helper = helper
        self.runner = runner
        self.environment = secrets.withoutSecrets(environment)
    }

    public func deliver(_ notification: Notification) throws {
        let outcome = try runner.run(
            helper, arguments: arguments(for: notification), environment: environment, input: Data(), timeout: 30)
        if outcome.timedOut { throw NotifierError("'\(helper)' did not answer within 30 s") }
        guard outcome.status == 0 else {
            throw NotifierError(
                "'\(helper)' exited with status \(outcome.status)" + (outcome.firstErrorLine.map { ": \($0)" } ?? ""))
        }
    }

    func arguments(for notification: Notification) -> [String] {
        #if os(macOS)
            return [
                "-e", "on run argv", "-e", "display notification (item 2 of argv) with title (item 1 of argv)",
                "-e", "end run", notification.title, notification.body,
            ]
        #else
            return [
                "--app-name=aggctl", "--urgency=\(notification.urgency == .critical ? "critical" : "normal")",
                "--hint=string:x-aggctl-event-id:\(notification.id)", "--", notification.title,
                SafeText.markup(notification.body),
            ]
        #endif
    }

    /// The helper program, when this machine has one and a desktop session to show notifications in:
    /// on Linux `notify-send` on `PATH` and a session bus (`DBUS_SESSION_BUS_ADDRESS`, or the bus socket in
    /// `XDG_RUNTIME_DIR`); on macOS `osascript`.
    public static func helperPath(in environment: [String: String]) -> String? {
        #if os(macOS)
            return FileManager.default.isExecutableFile(atPath: "/usr/bin/osascript") ? "/usr/bin/osascript" : nil
        #else
            let hasBus =
                !(environment["DBUS_SESSION_BUS_ADDRESS"] ?? "").isEmpty
                || environment["XDG_RUNTIME_DIR"].map { FileManager.default.fileExists(atPath: $0 + "/bus") } == true
            guard hasBus else { return nil }
            return FileSystem.program("notify-send", in: environment)
        #endif
    }
}
