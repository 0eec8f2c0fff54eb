/// `--notify desktop`: the desktop's notification service (notify-send on Linux, osascript on macOS).
public struct DesktopKind: NotifierKind {
    public init() {}
    public let name = "desktop"
    public let takesArgument = false
    public let form = "desktop"
    public let summary = "a desktop notification (the freedesktop service through notify-send; macOS: osascript)"

    public func make(argument: String?, context: NotifierContext) throws -> any Notifier {
        guard let helper = DesktopNotifier.helperPath(in: context.environment) else {
            throw NotifierSpecError(
                "--notify desktop: no desktop notification service is reachable (needs notify-send and a "
                    + "session bus); use stdout or command:/path/to/hook")
        }
        return DesktopNotifier(
            helper: helper, runner: context.processRunner, environment: context.environment, secrets: context.secrets)
    }
}
