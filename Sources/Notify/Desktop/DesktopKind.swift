/// `--notify desktop`: the desktop's notification service (notify-send on Linux, osascript on macOS).
package struct DesktopKind: NotifierKind {
    package init() {}
    package let name = "desktop"
    package let takesArgument = false
    package let form = "desktop"
    package let summary = "a desktop notification (the freedesktop service through notify-send; macOS: osascript)"

    package func make(argument: String?, context: NotifierContext) throws -> any Notifier {
        guard let helper = DesktopNotifier.helperPath(in: context.environment) else {
            throw NotifierSpecError(
                "--notify desktop: no desktop notification service is reachable (needs notify-send and a "
                    + "session bus); use stdout or command:/path/to/hook")
        }
        return DesktopNotifier(
            helper: helper, runner: context.processRunner, environment: context.environment, secrets: context.secrets)
    }
}
