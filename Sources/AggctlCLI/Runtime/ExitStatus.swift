/// The process exit codes, the one place they are defined (the command-line contract).
public enum ExitStatus: Int32, Sendable {
    /// Success; problems with single records are reported, not fatal.
    case success = 0
    /// The run failed: store unreachable, input unreadable, state unwritable, ...
    case failure = 1
    /// Usage error: unknown command or flag, bad value.
    case usage = 2
}

/// A mistake in how aggctl was called: exits 2 with a one-line message naming the flag and the accepted form.
struct UsageError: Error, Equatable, CustomStringConvertible {
    var message: String
    /// The command whose help explains the fix, when there is one.
    var command: String?

    init(_ message: String, command: String? = nil) {
        self.message = message
        self.command = command
    }

    var description: String { message }
}

/// A run that could not do its job: exits 1 with a one-line message.
struct CommandFailure: Error, Equatable, CustomStringConvertible {
    var message: String

    init(_ message: String) {
        self.message = message
    }

    var description: String { message }
}
