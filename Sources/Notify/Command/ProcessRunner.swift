import Foundation

/// Runs a program: the seam for hooks and desktop helpers. Never through a shell.
public protocol ProcessRunner: Sendable {
    /// Runs `executable` with `arguments` and exactly `environment`, writing `input` to its stdin.
    ///
    /// - Returns: how it ended; a program past `timeout` is stopped (SIGTERM, then SIGKILL a second
    ///   later) and reported as timed out.
    /// - Throws: `NotifierError` when it cannot be started at all.
    func run(
        _ executable: String, arguments: [String], environment: [String: String], input: Data,
        timeout: TimeInterval
    ) throws -> ProcessOutcome
}

public struct ProcessOutcome: Sendable, Equatable {
    public var status: Int32
    public var timedOut: Bool
    /// The first line the program wrote to stderr, for a one-line error message.
    public var firstErrorLine: String?

    public init(status: Int32, timedOut: Bool, firstErrorLine: String?) {
        self.status = status
        self.timedOut = timedOut
        self.firstErrorLine = firstErrorLine
    }
}

/// Runs programs with Foundation's `Process`.
public struct FoundationProcessRunner: ProcessRunner {
    public init() {}

    public func run(
        _ executable: String, arguments: [String], environment: [String: String], input: Data,
        timeout: TimeInterval
    ) throws -> ProcessOutcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        do {
            try process.run()
        } catch {
            throw NotifierError("cannot run '\(executable)': \(error.localizedDescription.lowercased())")
        }
        // Output is drained on other threads so a chatty program never blocks on a full pipe.
        let drained = DispatchGroup()
        nonisolated(unsafe) var errorText = Data()
        DispatchQueue.global().async(group: drained) { _ = stdout.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: drained) { errorText = stderr.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async {
            try? stdin.fileHandleForWriting.write(contentsOf: input)
            try? stdin.fileHandleForWriting.close()
        }
        var timedOut = false
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            timedOut = true
            process.terminate()
            if finished.wait(timeout: .now() + 1) == .timedOut {
                kill(process.processIdentifier, SIGKILL)
                finished.wait()
            }
        }
        _ = drained.wait(timeout: .now() + 2)
        let firstLine = String(decoding: errorText, as: UTF8.self).split(separator: "\n").first.map(String.init)
        return ProcessOutcome(status: process.terminationStatus, timedOut: timedOut, firstErrorLine: firstLine)
    }
}
