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
    /// With `shell`, runs `/bin/bash` with `arguments` instead (for pipelines); the binary is passed as `$0`.
    static func run(
        _ arguments: [String], environment: [String: String], input: Data? = nil, shell: Bool = false
    ) throws -> BinaryRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shell ? "/bin/bash" : binary)
        process.arguments = arguments
        process.environment = environment
        let stdout = Pipe()
        let stderr = Pipe()
        let stdin = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(input) }
        try stdin.fileHandleForWriting.close()
        // Drain both pipes concurrently so a chatty child never blocks on a full pipe.
        nonisolated(unsafe) var errorData = Data()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { errorData = stderr.fileHandleForReading.readDataToEndOfFile() }
        let outputData = stdout.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return BinaryRun(
            status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
            errors: String(decoding: errorData, as: UTF8.self))
    }
}
