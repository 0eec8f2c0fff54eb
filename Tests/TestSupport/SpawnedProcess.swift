import Foundation
import Notify

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A long-running child process for a test (a server and its watchdog), started the way a shell would
/// start it: an empty signal mask and default signal dispositions, whatever the spawning test thread
/// blocks, a process group of its own so that it can be stopped as a whole, and none of the test
/// process's descriptors but the three standard ones.
///
/// Foundation's `Process` passes the spawning thread's signal mask on; test threads block SIGTERM, so a
/// server started that way could never be stopped by SIGTERM and outlived the test run.
public final class SpawnedProcess: @unchecked Sendable {
    /// The child's process id, which is also its process group id.
    public let pid: pid_t
    private let lock = NSLock()
    private var exitStatus: Int32?

    /// Starts `arguments[0]` (looked up on `PATH`) with this process's environment, stdin from
    /// `/dev/null` and stdout and stderr appended to `output`.
    ///
    /// - Throws: `LocalServer.Failure` when it cannot be started.
    public init(_ arguments: [String], output: String) throws {
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = ChildProcessSetup.withSpawnSettings(defaults: ChildProcessSetup.allSignals) {
            actions, attributes in
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
            // A server lives long: it must not hold another test's pipes open (that test would wait for an
            // end of output that never comes) or any other descriptor of the test process.
            ChildProcessSetup.closeOthers(&actions, &attributes)
            return posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
        }
        guard spawned == 0 else {
            throw LocalServer.Failure(
                description: "cannot start '\(arguments[0])': \(String(cString: strerror(spawned)))")
        }
        self.pid = pid
    }

    /// Whether the child has not exited yet (reaps it when it has).
    public var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        guard exitStatus == nil else { return false }
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid || (result < 0 && errno == ECHILD) {
            exitStatus = status
            return false
        }
        return true
    }

    /// Sends `signal` to the child alone (not its group).
    public func send(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Waits up to `timeout` seconds for the child to exit; whether it did.
    @discardableResult
    public func waitForExit(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while isRunning {
            guard Date() < deadline else { return false }
            usleep(10_000)
        }
        return true
    }

    /// Whether any process of the child's group is still alive (the child's own children included).
    /// A zombie does not count: an orphan's zombie waits for whoever adopted it, not for us.
    public var groupIsAlive: Bool {
        _ = isRunning
        #if os(Linux)
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            return entries.contains { entry in
                guard entry.first?.isNumber == true,
                    let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                    let close = stat.lastIndex(of: ")")
                else { return false }
                // After the command name: state, parent, process group.
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                return fields.count > 2 && fields[0] != "Z" && Int32(fields[2]) == pid
            }
        #else
            return kill(-pid, 0) == 0
        #endif
    }
}
