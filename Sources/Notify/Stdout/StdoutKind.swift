/// `--notify stdout`: one JSON line per event on standard output.
public struct StdoutKind: NotifierKind {
    public init() {}
    public let name = "stdout"
    public let takesArgument = false
    public let form = "stdout"
    public let summary = "one JSON line per event on standard output"

    public func make(argument: String?, context: NotifierContext) throws -> any Notifier {
        StdoutNotifier(write: context.writeOutput)
    }
}
