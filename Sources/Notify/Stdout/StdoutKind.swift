/// `--notify stdout`: one JSON line per event on standard output.
package struct StdoutKind: NotifierKind {
    package init() {}
    package let name = "stdout"
    package let takesArgument = false
    package let form = "stdout"
    package let summary = "one JSON line per event on standard output"

    package func make(argument: String?, context: NotifierContext) throws -> any Notifier {
        StdoutNotifier(write: context.writeOutput)
    }
}
