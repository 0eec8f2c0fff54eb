import Portable

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

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs programs with `posix_spawn`, each in a process group of its own, so that a time limit stops the
/// whole program: `sh` defers SIGTERM until its foreground command ends, and children would keep its
/// pipes open.
///
/// A program's stdin is an unlinked temporary file holding its whole input, written before it starts:
/// it gets the whole event or (when we are killed first) never runs, and a program that does not read
/// can never block us past its time limit. SIGPIPE is ignored in the calling process (the child gets the
/// default back).
public struct SpawnProcessRunner: ProcessRunner {
    public init() {
        signal(SIGPIPE, SIG_IGN)
    }

    public func run(
        _ executable: String, arguments: [String], environment: [String: String], input: Data,
        timeout: TimeInterval
    ) throws -> ProcessOutcome {
        try run(executable, arguments: arguments, environment: environment, input: input, timeout: timeout, output: nil)
    }

    /// `run`, keeping what the program writes to stdout (up to `limit` bytes): `crontab -l` for `aggctl init`.
    public func runCapturingOutput(
        _ executable: String, arguments: [String], environment: [String: String], input: Data = Data(),
        timeout: TimeInterval, limit: Int = 1 << 20
    ) throws -> (outcome: ProcessOutcome, output: Data) {
        // A file rather than a pipe, like stdin: nothing to drain while waiting, whatever the program writes.
        let outputFile = try Self.inputFile(Data(), for: executable)
        defer { close(outputFile) }
        let outcome = try run(
            executable, arguments: arguments, environment: environment, input: input, timeout: timeout,
            output: outputFile)
        guard lseek(outputFile, 0, SEEK_SET) == 0 else { return (outcome, Data()) }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while output.count < limit {
            let count = chunk.withUnsafeMutableBytes { read(outputFile, $0.baseAddress!, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            output.append(contentsOf: chunk[0..<count])
        }
        return (outcome, output.prefix(limit))
    }

    private func run(
        _ executable: String, arguments: [String], environment: [String: String], input: Data,
        timeout: TimeInterval, output: Int32?
    ) throws -> ProcessOutcome {
        // The whole input is in a file before the program starts, and the file is its stdin: it reads the
        // whole event or, if we are killed before spawning, runs not at all; and we never block writing
        // to a program that does not read, so the time limit holds whatever the input's size.
        let inputFile = try Self.inputFile(input, for: executable)
        defer { close(inputFile) }
        var errorPipe: [Int32] = [0, 0]
        guard pipe(&errorPipe) == 0 else { throw NotifierError("cannot run '\(executable)': no pipe") }
        // The read end of stderr belongs to the collector thread from here on: it closes it at the end
        // of input, so a descriptor number is never closed under a read still in progress.
        var collectorOwnsErrors = false
        defer {
            if !collectorOwnsErrors { close(errorPipe[0]) }
        }

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = ChildProcessSetup.withSpawnSettings(defaults: [SIGPIPE, SIGXFSZ]) { actions, attributes in
            posix_spawn_file_actions_adddup2(&actions, inputFile, 0)
            if let output {
                posix_spawn_file_actions_adddup2(&actions, output, 1)
            } else {
                posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            }
            posix_spawn_file_actions_adddup2(&actions, errorPipe[1], 2)
            for descriptor in [inputFile] + errorPipe + (output.map { [$0] } ?? []) {
                posix_spawn_file_actions_addclose(&actions, descriptor)
            }
            ChildProcessSetup.closeOthers(&actions, &attributes)
            var result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
            // "Text file busy": a program written a moment ago whose descriptor another thread's child still
            // holds (descriptors opened without close-on-exec survive a concurrent fork). It passes; retry.
            var retries = 0
            while result == ETXTBSY && retries < 40 {
                usleep(25_000)
                retries += 1
                result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
            }
            return result
        }
        close(errorPipe[1])
        guard spawned == 0 else {
            throw NotifierError("cannot run '\(executable)': \(String(cString: strerror(spawned)).lowercased())")
        }

        // stderr is read on another thread; what came by the end is enough for a one-line message.
        let errors = ErrorCollector(descriptor: errorPipe[0])
        collectorOwnsErrors = true
        DispatchQueue.global().async { errors.collect() }

        var status: Int32 = 0
        var timedOut = false
        let deadline = Date().addingTimeInterval(timeout)
        // Looked at often at first, then every 5 ms: a hook is done in about a millisecond, and a fixed
        // 5 ms between looks was most of what each of a burst of 1000 events cost (5.3 ms an event).
        var pause: UInt32 = 100
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() >= deadline {
                timedOut = true
                kill(-pid, SIGTERM)
                let grace = Date().addingTimeInterval(1)
                while waitpid(pid, &status, WNOHANG) == 0 && Date() < grace { usleep(10_000) }
                kill(-pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                break
            }
            usleep(pause)
            pause = min(pause * 2, 5_000)
        }
        let exitStatus: Int32 = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return ProcessOutcome(status: exitStatus, timedOut: timedOut, firstErrorLine: errors.firstLine(wait: 0.5))
    }
}

extension SpawnProcessRunner {
    /// A descriptor of an unlinked temporary file holding `input`, positioned at its start.
    static func inputFile(_ input: Data, for executable: String) throws -> Int32 {
        let folder = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(folder)/aggctl-input-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw NotifierError("cannot run '\(executable)': no temporary file for its input in '\(folder)'")
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        var failure: Int32 = 0
        input.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let count = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += count
            }
        }
        guard failure == 0, lseek(descriptor, 0, SEEK_SET) == 0 else {
            close(descriptor)
            throw NotifierError(
                "cannot run '\(executable)': its input could not be written to '\(folder)' "
                    + "(\(String(cString: strerror(failure == 0 ? errno : failure)).lowercased()))")
        }
        return descriptor
    }
}

/// Reads a program's stderr until it closes; hands out the first line.
private final class ErrorCollector: @unchecked Sendable {
    private let descriptor: Int32
    private let lock = Lock()
    private var bytes: [UInt8] = []
    private let done = DispatchSemaphore(value: 0)

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    func collect() {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            lock.lock()
            if bytes.count < 65_536 { bytes += chunk[0..<count] }
            lock.unlock()
        }
        close(descriptor)
        done.signal()
    }

    /// The first line, cut at `ErrorCollector.lineLimit` characters: it goes into a one-line error
    /// message, and a hook's 65 KB line was copied there whole.
    func firstLine(wait: TimeInterval) -> String? {
        _ = done.wait(timeout: .now() + wait)
        lock.lock()
        defer { lock.unlock() }
        guard let line = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first else { return nil }
        return line.count > Self.lineLimit ? line.prefix(Self.lineLimit) + "..." : String(line)
    }

    static let lineLimit = 200
}
