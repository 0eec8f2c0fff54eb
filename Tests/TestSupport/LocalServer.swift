import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A real server process on 127.0.0.1 for the duration of a test (or of a test process, when shared).
///
/// It runs under a small watchdog shell that stops it when the test process goes away, so a crashed or
/// killed test run never leaves servers behind: SIGTERM first, and when the server has not exited
/// `stopGrace` seconds later, SIGKILL to the whole process group (the server's workers included). Output
/// goes to a log file, quoted when it fails to start.
///
/// The watchdog also removes the server's folder once the test process and then the server are gone. A
/// server shared by a test process is held by a static, whose deinit never runs: its folder (a SeaweedFS
/// one holds 35 MB) was left in the temporary folder by every test run.
public final class LocalServer: @unchecked Sendable {
    public let port: Int
    public let log: String
    private let watchdog: SpawnedProcess

    /// How long a server has to exit after SIGTERM before its process group is killed.
    public static let stopGrace = 3

    /// `http://127.0.0.1:<port>`.
    public var origin: String { "http://127.0.0.1:\(port)" }

    /// The process group of the watchdog, the server and everything the server started.
    public var processGroup: pid_t { watchdog.pid }

    /// Starts `command` (whose arguments may include `port`), and waits until it accepts connections.
    ///
    /// - Parameters:
    ///   - folder: the server's own folder (its data and `log`), removed once the test process and then
    ///     the server have gone; a server that outlives its test (a shared one) must pass it.
    ///   - parent: the process whose end stops the server: this test process, or in the watchdog's own
    ///     tests a stand-in that can be killed as a crashed test run would be.
    /// - Throws: `LocalServer.Failure` when it exits or does not listen within `readyTimeout` seconds.
    public init(
        _ command: [String], port: Int, log: String, folder: TemporaryDirectory? = nil,
        readyTimeout: TimeInterval = 20, parent: pid_t = getpid()
    ) throws {
        self.port = port
        self.log = log
        // The loop polls both the test process and the server; `stop` runs on either one's end and on
        // the watchdog's own SIGTERM. When the test process is gone, the folder goes once the server has
        // exited (or been killed), so that nothing writes into it again; while it lives, the folder is
        // its own (a server that did not start is reported with its log). `kill -KILL 0` then ends the
        // watchdog's whole group (the server's workers, and itself).
        let script = """
            parent=$1; folder=$2; shift 2
            "$@" & child=$!
            stop() {
              trap '' TERM INT
              kill -TERM $child 2>/dev/null
              ticks=0
              while kill -0 $child 2>/dev/null && [ $ticks -lt \(Self.stopGrace * 10) ]; do
                sleep 0.1; ticks=$((ticks + 1))
              done
              kill -KILL $child 2>/dev/null
              if [ -n "$folder" ] && ! kill -0 "$parent" 2>/dev/null; then rm -rf -- "$folder"; fi
              kill -KILL 0
            }
            trap stop TERM INT
            while kill -0 "$parent" 2>/dev/null && kill -0 $child 2>/dev/null; do sleep 0.2; done
            stop
            """
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        watchdog = try SpawnedProcess(
            ["/bin/sh", "-c", script, "watchdog", String(parent), folder?.path ?? ""] + command, output: log)
        let deadline = Date().addingTimeInterval(readyTimeout)
        while !LocalServer.accepts(port: port) {
            guard watchdog.isRunning, Date() < deadline else {
                stop()
                let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                throw Failure(
                    description: "\(command[0]) did not start on port \(port): "
                        + said.split(separator: "\n").suffix(3).joined(separator: " | "))
            }
            usleep(20_000)
        }
    }

    deinit {
        stop()
    }

    /// Asks the watchdog to stop the server; returns at once (the group is gone within `stopGrace` s).
    public func stop() {
        watchdog.send(SIGTERM)
    }

    /// Whether any process of the server's group is still alive.
    public var isAlive: Bool { watchdog.groupIsAlive }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// A port nothing listens on right now (the kernel's choice for an ephemeral bind).
    public static func freePort() -> Int {
        let socket = Self.socket()
        defer { close(socket) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                _ = bind(socket, pointer, length)
                return getsockname(socket, pointer, &length)
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    public static func accepts(port: Int) -> Bool {
        let socket = Self.socket()
        defer { close(socket) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    static func socket() -> Int32 {
        #if canImport(Glibc)
            return Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            return Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
    }

    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}

/// A TCP port on 127.0.0.1 that completes connections (the kernel's backlog does) but never reads or
/// answers: a server that accepted and hangs.
public final class SilentListener {
    public let port: Int
    private let socket: Int32

    public init() throws {
        let socket = LocalServer.socket()
        self.socket = socket
        var address = LocalServer.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && listen(socket, 16) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else { throw LocalServer.Failure(description: "cannot listen on 127.0.0.1") }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(socket) }
}

/// Whether a test needing `tool` can run here. Missing on a developer's machine: the test is skipped with
/// a loud reason. Missing under CI (`CI=true`): the test runs and fails, because CI must prove it.
public enum RequiredTool {
    public static func available(_ tool: String) -> Bool {
        if ProcessInfo.processInfo.environment["CI"] == "true" { return true }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let directories: [String] = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin"]
        return directories.contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }
    }
}

extension LocalServer {
    /// One `Tests/Servers/http_server.py` per test process: an echo server that misbehaves on request
    /// (see its header), with a log of what it received at `/log`.
    public static func sharedHTTPServer() throws -> LocalServer {
        try sharedHTTP.get().server
    }

    private static let sharedHTTP = Result { () throws -> (server: LocalServer, folder: TemporaryDirectory) in
        let port = LocalServer.freePort()
        let folder = TemporaryDirectory("aggctl-http")
        let server = try LocalServer(
            ["python3", Repository.path("Tests/Servers/http_server.py"), String(port)], port: port,
            log: folder.file("server.log"), folder: folder)
        return (server, folder)
    }
}
