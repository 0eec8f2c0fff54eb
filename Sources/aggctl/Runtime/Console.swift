import Foundation
import Snapshots

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a text stream goes: a file descriptor in the binary, a buffer in tests.
protocol TextSink: AnyObject, Sendable {
    func write(_ text: String)
    /// Writes UTF-8 bytes as they are: large outputs skip building and re-validating a String.
    func write(bytes: UnsafeRawBufferPointer)
}

extension TextSink {
    func write(bytes: UnsafeRawBufferPointer) {
        write(String(decoding: bytes, as: UTF8.self))
    }
}

/// The two output streams of a command: data on `output`, diagnostics on `errors`.
struct Console: Sendable {
    var output: any TextSink
    var errors: any TextSink
    /// Colour and terminal-friendly formatting: only when stdout is a terminal and `NO_COLOR` is unset.
    var usesColor: Bool
    /// Whether a person is probably watching stderr (confirmation messages are for them, not for cron).
    var errorsAreTerminal: Bool

    func print(_ line: String) { output.write(line + "\n") }
    func warn(_ message: String) { errors.write("aggctl: warning: \(message)\n") }
    func fail(_ message: String) { errors.write("aggctl: error: \(message)\n") }
    func note(_ message: String) { errors.write("aggctl: \(message)\n") }

    /// The console of the running process.
    static func standard(environment: [String: String]) -> Console {
        let noColor = !(environment["NO_COLOR"] ?? "").isEmpty || environment["TERM"] == "dumb"
        return Console(
            output: FileDescriptorSink(descriptor: 1), errors: FileDescriptorSink(descriptor: 2),
            usesColor: isatty(1) == 1 && !noColor, errorsAreTerminal: isatty(2) == 1)
    }
}

/// Writes to a file descriptor. A reader that goes away (`aggctl status | head -1`) is a normal end,
/// not an error: later writes are dropped silently.
final class FileDescriptorSink: TextSink, @unchecked Sendable {
    private let descriptor: Int32
    private let lock = NSLock()
    private var closed = false

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    func write(_ text: String) {
        var text = text
        text.withUTF8 { write(bytes: UnsafeRawBufferPointer($0)) }
    }

    func write(bytes buffer: UnsafeRawBufferPointer) {
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { return }
        // A failed write (the reader went away) ends this stream quietly.
        if Descriptor.writeAll(descriptor, buffer) != 0 { closed = true }
    }
}

/// Collects text in memory, for in-process tests.
final class BufferSink: TextSink, @unchecked Sendable {
    private let lock = NSLock()
    private var buffer = ""

    init() {}

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
