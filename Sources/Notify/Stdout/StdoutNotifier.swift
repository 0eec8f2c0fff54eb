/// Prints each event as one line of JSON on standard output: for pipes, logs and other programs.
public struct StdoutNotifier: Notifier {
    public let name = "stdout"
    private let write: @Sendable (String) -> Void

    /// - Parameter write: where lines go (the console's output in the binary, a buffer in tests).
    public init(write: @escaping @Sendable (String) -> Void) {
        self.write = write
    }

    public func deliver(_ notification: Notification) throws {
        write(notification.jsonLine + "\n")
    }
}
