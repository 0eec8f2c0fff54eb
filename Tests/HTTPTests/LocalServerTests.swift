import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The test servers themselves: they must stop when told, whatever they do with SIGTERM, so that a test
/// run leaves no process behind (`script/no-leftovers` checks the whole run).
struct LocalServerTests {
    /// A Python HTTP server on `port`, started through `sh` so that `prefix` can change its signals first.
    static func server(
        _ prefix: String, port: Int, log: String, folder: TemporaryDirectory? = nil, parent: pid_t = getpid()
    ) throws -> LocalServer {
        try LocalServer(
            ["sh", "-c", "\(prefix) exec python3 -m http.server --bind 127.0.0.1 \"$0\"", String(port)], port: port,
            log: log, folder: folder, parent: parent)
    }

    /// Waits up to `seconds` for `condition`; whether it came true.
    static func eventually(within seconds: TimeInterval, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else { return false }
            usleep(50_000)
        }
        return true
    }

    @Test("when the test process dies, its server is stopped and the server's folder removed; not before")
    func testProcessDies() throws {
        // A stand-in for the test process, killed as a crashed or killed test run would be.
        let standIn = try SpawnedProcess(["sleep", "600"], output: "/dev/null")
        defer { standIn.send(SIGKILL) }
        let folder = TemporaryDirectory("aggctl-local-server")
        try folder.write("data/record.json", "{}")
        let server = try Self.server(
            "", port: LocalServer.freePort(), log: folder.file("log"), folder: folder, parent: standIn.pid)
        defer { server.stop() }
        withExtendedLifetime(folder) {
            // While the test process lives the folder is the test's, even past a while of serving.
            usleep(500_000)
            #expect(server.isAlive)
            #expect(FileManager.default.fileExists(atPath: folder.file("data/record.json")))
            standIn.send(SIGKILL)
            // Reaped, as a dead test process is by whatever started it: a zombie still answers `kill -0`.
            #expect(standIn.waitForExit(timeout: 5))
            let grace = TimeInterval(LocalServer.stopGrace) + 5
            #expect(Self.eventually(within: grace) { !server.isAlive }, "the server outlived its test process")
            #expect(!LocalServer.accepts(port: server.port))
            #expect(
                Self.eventually(within: grace) { !FileManager.default.fileExists(atPath: folder.path) },
                "the server's folder outlived its test process")
        }
    }

    @Test("a server stopped while its test process lives keeps its folder, for the test to read its log")
    func stoppedServerKeepsFolder() throws {
        let folder = TemporaryDirectory("aggctl-local-server")
        let server = try Self.server("", port: LocalServer.freePort(), log: folder.file("log"), folder: folder)
        server.stop()
        #expect(Self.eventually(within: TimeInterval(LocalServer.stopGrace) + 5) { !server.isAlive })
        #expect(FileManager.default.fileExists(atPath: folder.file("log")))
    }

    @Test("a server that ignores SIGTERM is killed with its whole group shortly after it is told to stop")
    func ignoringTerm() throws {
        let folder = TemporaryDirectory("aggctl-local-server")
        let server = try Self.server("trap '' TERM;", port: LocalServer.freePort(), log: folder.file("log"))
        #expect(server.isAlive)
        let stopped = Date()
        server.stop()
        let deadline = stopped.addingTimeInterval(TimeInterval(LocalServer.stopGrace) + 5)
        while server.isAlive && Date() < deadline { usleep(50_000) }
        #expect(!server.isAlive, "the server's group outlived its stop")
        #expect(!LocalServer.accepts(port: server.port))
        // It had its grace period: SIGTERM first, SIGKILL only when that did nothing.
        #expect(Date().timeIntervalSince(stopped) >= TimeInterval(LocalServer.stopGrace) - 0.5)
    }

    #if os(Linux)
        @Test("a server starts with no signal blocked, whatever the test thread blocks")
        func emptySignalMask() throws {
            var blocked = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGTERM)
            var previous = sigset_t()
            pthread_sigmask(SIG_BLOCK, &blocked, &previous)
            defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
            let folder = TemporaryDirectory("aggctl-local-server")
            let server = try Self.server("", port: LocalServer.freePort(), log: folder.file("log"))
            defer { server.stop() }
            let group = server.processGroup
            let children = try String(contentsOfFile: "/proc/\(group)/task/\(group)/children", encoding: .utf8)
            // The watchdog and the server; not the watchdog's short-lived `sleep`, which the shell starts
            // with every signal blocked for the moment between fork and exec.
            let serverPIDs = children.split(separator: " ").compactMap { Int32($0) }.filter { pid in
                ((try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? "").contains("http.server")
            }
            #expect(serverPIDs.count == 1)
            for pid in [group] + serverPIDs {
                // The watchdog is a shell: for the moment it forks its `sleep` it blocks every signal. The
                // mask that matters is the one it keeps, read again until the fork is behind it.
                var line: Substring?
                for _ in 0..<50 {
                    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
                    line = status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") }
                    if line?.split(separator: "\t").last == "0000000000000000" { break }
                    usleep(10_000)
                }
                #expect(line?.split(separator: "\t").last == "0000000000000000", "process \(pid): \(line ?? "")")
            }
        }
    #endif

    @Test("a stopped server's port is free again and its group gone, when it honours SIGTERM")
    func honouringTerm() throws {
        let folder = TemporaryDirectory("aggctl-local-server")
        let server = try Self.server("", port: LocalServer.freePort(), log: folder.file("log"))
        server.stop()
        let deadline = Date().addingTimeInterval(TimeInterval(LocalServer.stopGrace))
        while server.isAlive && Date() < deadline { usleep(20_000) }
        #expect(!server.isAlive)
    }
}

/// `script/no-leftovers`, the check at the end of `script/test`.
struct NoLeftoversTests {
    static func run(_ script: String) throws -> (status: Int32, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Repository.path("script/no-leftovers"))
        process.arguments = ["sh", "-c", script]
        process.environment = ProcessInfo.processInfo.environment.merging(["NO_LEFTOVERS_GRACE": "0.5"]) { $1 }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    #if os(Linux)
        @Test("a run that leaves a process behind fails, names it and kills it, even one that left its session")
        func leftover() throws {
            let marker = "sleep 600.\(Int.random(in: 100_000...999_999))"
            let run = try Self.run("setsid \(marker) & exit 0")
            #expect(run.status == 1)
            #expect(run.errors.contains(marker), "\(run.errors)")
            let pgrep = Process()
            pgrep.executableURL = URL(fileURLWithPath: "/usr/bin/pgrep")
            pgrep.arguments = ["-f", marker]
            pgrep.standardOutput = FileHandle.nullDevice
            try pgrep.run()
            pgrep.waitUntilExit()
            #expect(pgrep.terminationStatus == 1, "the leftover is still running")
        }
    #endif

    @Test("a run that leaves something in its temporary folder fails and names it; SwiftPM's locks do not count")
    func leftoverFile() throws {
        let left = try Self.run("mkdir \"$TMPDIR/aggctl-forgotten.1\" && touch \"$TMPDIR/_root_.swiftpm.lock\"")
        #expect(left.status == 1)
        #expect(
            left.errors.contains("1 item(s) left in the run's temporary folder: aggctl-forgotten.1"), "\(left.errors)")
        #expect(
            try Self.run(
                "touch \"$TMPDIR/_root_.swiftpm.lock\"; mkdir \"$TMPDIR/TemporaryDirectory.x\" && touch \"$TMPDIR/TemporaryDirectory.x/.keep-directory\""
            ).status == 0)
        let full = try Self.run("mkdir \"$TMPDIR/TemporaryDirectory.y\" && touch \"$TMPDIR/TemporaryDirectory.y/z\"")
        #expect(full.status == 1, "a helper folder with something in it is not SwiftPM's leftover: \(full.errors)")
    }

    @Test("a run that cleans up passes its own exit status on")
    func clean() throws {
        #expect(try Self.run("sleep 0.1 & wait; exit 0").status == 0)
        #expect(try Self.run("exit 3").status == 3)
    }
}
