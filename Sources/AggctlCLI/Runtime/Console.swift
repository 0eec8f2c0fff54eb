import Portable
import Serialization
import Snapshots
import TextSafety

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a text stream goes: a file descriptor in the binary, a buffer in tests.
protocol TextSink: ByteSink, Sendable {
    func write(_ text: String)
    /// Writes UTF-8 bytes as they are: large outputs skip building and re-validating a String.
    func write(bytes: UnsafeRawBufferPointer)
    /// Writes the pieces one after another, as one write where the stream can (`writev`).
    func write(pieces: [UnsafeRawBufferPointer])
    /// Why the stream stopped taking writes (the `errno` of the first failed write), or nil while every
    /// write went through. Once set, later writes are dropped.
    var failure: Int32? { get }
}

extension TextSink {
    func write(bytes: UnsafeRawBufferPointer) {
        write(String(decoding: bytes, as: UTF8.self))
    }

    func write(pieces: [UnsafeRawBufferPointer]) {
        for piece in pieces { write(bytes: piece) }
    }

    /// Writes `text`, and throws when it did not all arrive (a full disk, a closed pipe, an I/O error):
    /// for output whose loss matters, such as an event that is marked delivered once written.
    func writeChecked(_ text: String) throws(OutputFailure) {
        write(text)
        if let failure { throw OutputFailure(errno: failure) }
    }
}

/// A write to an output stream that did not arrive.
struct OutputFailure: Error, Equatable, CustomStringConvertible {
    var errno: Int32

    /// The reader went away (`aggctl status | head -1`): a normal end for data output.
    var isClosedPipe: Bool { errno == EPIPE }

    var description: String { String(cString: strerror(errno)).lowercased() }
}

/// The two output streams of a command: data on `output`, diagnostics on `errors`.
struct Console: Sendable {
    var output: any TextSink
    var errors: any TextSink
    /// Colour and terminal-friendly formatting: only when stdout is a terminal and `NO_COLOR` is unset.
    var usesColor: Bool
    /// Whether a person is probably watching stderr (confirmation messages are for them, not for cron).
    var errorsAreTerminal: Bool

    // Every line below may quote record or file text: each is made one safe line here, the one place
    // for plain lines. Tables make their cells safe themselves (`TextTable`), JSON escapes its strings.

    /// One line of data for people (`doctor`'s findings, a note in place of a table).
    func print(_ line: String) { output.write(SafeText.line(line) + "\n") }
    /// Output already made safe, as it is: a rendered `TextTable`, help texts.
    func printRendered(_ text: String) { output.write(text.hasSuffix("\n") ? text : text + "\n") }
    /// Output already made safe, as UTF-8 lines each ending in a line feed (a large rendered table).
    func printRendered(lines: [UInt8]) { lines.withUnsafeBytes { output.write(bytes: $0) } }
    func warn(_ message: String) { errors.write("aggctl: warning: \(SafeText.line(message))\n") }
    func fail(_ message: String) { errors.write("aggctl: error: \(SafeText.line(message))\n") }
    func note(_ message: String) { errors.write("aggctl: \(SafeText.line(message))\n") }

    /// The console of the running process.
    static func standard(environment: [String: String], closedOutput: Bool = false, closedErrors: Bool = false)
        -> Console
    {
        let noColor = !(environment["NO_COLOR"] ?? "").isEmpty || environment["TERM"] == "dumb"
        return Console(
            output: FileDescriptorSink(descriptor: 1, failure: closedOutput ? EBADF : nil),
            errors: FileDescriptorSink(descriptor: 2, failure: closedErrors ? EBADF : nil),
            usesColor: isatty(1) == 1 && !noColor, errorsAreTerminal: isatty(2) == 1)
    }
}

/// Writes to a file descriptor, unbuffered, so a write that returned has reached the kernel. The first
/// failure (a reader that went away, a full disk) is kept in `failure` and later writes are dropped:
/// `Aggctl.run` turns it into the run's outcome, quietly for a closed pipe.
final class FileDescriptorSink: TextSink, @unchecked Sendable {
    private let descriptor: Int32
    private let lock = Lock()
    private var firstFailure: Int32?

    /// - Parameter failure: the stream cannot be written at all (it was closed when the process started).
    init(descriptor: Int32, failure: Int32? = nil) {
        self.descriptor = descriptor
        firstFailure = failure
    }

    func write(_ text: String) {
        var text = text
        text.withUTF8 { write(bytes: UnsafeRawBufferPointer($0)) }
    }

    func write(bytes buffer: UnsafeRawBufferPointer) {
        write(pieces: [buffer])
    }

    func write(pieces: [UnsafeRawBufferPointer]) {
        lock.lock()
        defer { lock.unlock() }
        guard firstFailure == nil else { return }
        let result = Descriptor.writeAll(descriptor, pieces: pieces)
        if result != 0 { firstFailure = result }
    }

    var failure: Int32? {
        lock.lock()
        defer { lock.unlock() }
        return firstFailure
    }
}

/// Collects text in memory, for in-process tests.
final class BufferSink: TextSink, @unchecked Sendable {
    private let lock = Lock()
    private var buffer = ""

    init() {}

    var failure: Int32? { nil }

    func write(_ text: String) {
        lock.lock()
        buffer += text
        lock.unlock()
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return buffer
    }
}
