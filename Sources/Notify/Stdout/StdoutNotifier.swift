/// Prints each event as one line of JSON on standard output: for pipes, logs and other programs.
///
/// Delivered means written: a line that did not arrive (a full disk, a closed pipe) is a failure, so the
/// event stays in the outbox for the next run.
public struct StdoutNotifier: Notifier {
    public let name = "stdout"
    private let write: @Sendable (String) throws -> Void

    /// - Parameter write: where lines go (the console's output in the binary, a buffer in tests); throws
    ///   when the line did not arrive whole.
    public init(write: @escaping @Sendable (String) throws -> Void) {
        self.write = write
    }

    public func deliver(_ notification: Notification) throws {
        do {
            try write(notification.jsonLine + "\n")
        } catch {
            throw NotifierError("cannot write to standard output: \(error)")
        }
    }
}
