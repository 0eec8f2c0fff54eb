import Foundation
import TestSupport

/// Runs the built `aggctl` binary as a user would: real process, real files, real exit codes.
struct BinaryRun {
    var status: Int32
    var output: String
    var errors: String

    /// The binary `swift build` made beside this test bundle.
    static let binary: String = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        for _ in 0..<5 {
            directory.deleteLastPathComponent()
            let candidate = directory.appendingPathComponent("aggctl").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return Repository.path(".build/debug/aggctl")
    }()

    /// Runs the binary with `arguments`, an environment of exactly `environment`, and `input` on stdin.
    /// With `shell`, runs `/bin/bash` with `arguments` instead (for pipelines); with `executable`, that
    /// program instead. Past `timeout` the process is killed and the run fails, so a test never hangs
    /// (output still held open by a stray grandchild is abandoned, not waited for).
    static func run(
        _ arguments: [String], environment: [String: String], input: Data? = nil, shell: Bool = false,
        executable: String? = nil, timeout: TimeInterval = 120
    ) throws -> BinaryRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable ?? (shell ? "/bin/bash" : binary))
        process.arguments = arguments
        process.environment = environment
        let stdout = Pipe()
        let stderr = Pipe()
        let stdin = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = stdin
        try process.run()
        // A child may end before reading its input (a usage error is found first): the broken pipe is
        // its answer, not the test's failure (the non-throwing write trapped on it).
        if let input { try? stdin.fileHandleForWriting.write(contentsOf: input) }
        try stdin.fileHandleForWriting.close()
        // Both pipes drained on other threads, so a chatty child never blocks on a full pipe.
        let output = Collected()
        let errors = Collected()
        let drained = DispatchGroup()
        DispatchQueue.global().async(group: drained) { output.data = stdout.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: drained) { errors.data = stderr.fileHandleForReading.readDataToEndOfFile() }
        if drained.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            kill(process.processIdentifier, SIGKILL)
            throw TimedOut(command: ([process.executableURL?.path ?? ""] + arguments).joined(separator: " "))
        }
        process.waitUntilExit()
        return BinaryRun(
            status: process.terminationStatus, output: String(decoding: output.data, as: UTF8.self),
            errors: String(decoding: errors.data, as: UTF8.self))
    }

    struct TimedOut: Error, CustomStringConvertible {
        var command: String
        var description: String { "timed out: \(command)" }
    }
}

/// Bytes handed from a reading thread to the test.
private final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var bytes = Data()

    var data: Data {
        get {
            lock.lock()
            defer { lock.unlock() }
            return bytes
        }
        set {
            lock.lock()
            bytes = newValue
            lock.unlock()
        }
    }
}
