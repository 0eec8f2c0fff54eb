#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One of aggctl's own state files (`check`'s ledger, `publish`'s history), and the lock that makes a
/// whole cycle over it one at a time.
///
/// Two `check` runs started together (cron overlap) must deliver each event once: the read, decide,
/// deliver and write cycle runs under an exclusive `flock` on `alerts.lock`, and every write of
/// `alerts.json` is atomic and flushed (temporary file, fsync, rename, folder fsync). A state file that
/// is not valid state is renamed aside, not overwritten, and reported; one that cannot be read at all is
/// a failure that leaves it alone.
public struct StateFile: Sendable {
    public let directory: String
    /// The file's name without `.json`: `alerts` for `check`'s state, `history` for what `publish` observed.
    public let name: String

    public init(directory: String, name: String = "alerts") {
        self.directory = directory
        self.name = name
    }

    public var path: String { directory + "/\(name).json" }
    var lockPath: String { directory + "/\(name).lock" }

    /// What `load` found.
    public enum Loaded<Value: Sendable & Equatable>: Sendable, Equatable {
        /// No state yet: the first run.
        case fresh
        case loaded(Value)
        /// The file was not valid state; it was moved to `setAsideAt`.
        case corrupt(setAsideAt: String, reason: String)
    }

    /// Where a ledger keeps the facts it records between two writes of the state (`DeliveryJournal`).
    public var journalPath: String { directory + "/\(name).journal" }

    /// Runs `body` while holding the state directory's exclusive lock, creating the directory (mode 0700)
    /// when missing. The lock goes with the process, even on `kill -9`.
    ///
    /// - Parameters:
    ///   - timeout: give up (throw) after waiting this many seconds; nil waits as long as it takes.
    ///   - onWait: told once, after `patience` seconds of waiting, who holds the lock (`process 1234`).
    public func withLock<Result>(
        timeout: TimeInterval? = nil, patience: TimeInterval = 3, onWait: (String) -> Void = { _ in },
        _ body: () throws -> Result
    ) throws -> Result {
        do {
            try FileSystem.createFolders(directory)
        } catch {
            throw StateFileError(
                "cannot create state directory '\(directory)': \(error.reason)")
        }
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StateFileError("cannot open '\(lockPath)': \(String(cString: strerror(errno)).lowercased())")
        }
        defer { close(descriptor) }
        let started = Date()
        var told = false
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                throw StateFileError("cannot lock '\(lockPath)': \(String(cString: strerror(errno)).lowercased())")
            }
            let waited = Date().timeIntervalSince(started)
            if let timeout, waited >= timeout {
                throw StateFileError(
                    "gave up after waiting \(Self.seconds(waited)) s for the state lock '\(lockPath)', held by "
                        + "\(holder(descriptor)) (--lock-timeout)")
            }
            if !told, waited >= patience {
                told = true
                onWait("waiting for the state lock '\(lockPath)', held by \(holder(descriptor))")
            }
            usleep(50_000)
        }
        defer { flock(descriptor, LOCK_UN) }
        // Who holds it, for whoever waits: this process's id, replacing the last holder's.
        let text = "\(getpid())\n"
        _ = ftruncate(descriptor, 0)
        _ = text.withCString { pwrite(descriptor, $0, strlen($0), 0) }
        return try body()
    }

    /// "process N" from the lock file (the holder writes its id there), or "another process".
    private func holder(_ descriptor: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        guard count > 0,
            let pid = Int(
                String(decoding: buffer[0..<count], as: UTF8.self).trimmingWhitespace())
        else { return "another process" }
        return "process \(pid)"
    }

    private static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() ? String(Int(value)) : String(cFormat: "%.1f", value)
    }

    /// Reads the state; call it while holding the lock.
    ///
    /// Only a missing file is a fresh start. A file that is not valid state is set aside under a name of
    /// its own (never overwriting an earlier one) and reported as `corrupt`. A file that cannot be read at
    /// all (permissions, a folder or a pipe in its place, an I/O error) throws and is left alone: taking
    /// it for "no state" would drop its queued events and overwrite it. Temporary files of killed runs
    /// are removed (under the lock no other run is writing one).
    ///
    /// - Parameter decode: the file's one reader; what it throws makes the file not valid state.
    public func load<Value: Sendable & Equatable>(_ decode: (Data) throws -> Value) throws -> Loaded<Value> {
        sweepTemporaryFiles()
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return .fresh }
            throw unreadable(String(cString: strerror(errno)).lowercased())
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            let kind: String
            switch info.st_mode & S_IFMT {
            case S_IFDIR: kind = "a folder"
            case S_IFLNK: kind = "a symbolic link"
            case S_IFIFO: kind = "a pipe"
            default: kind = "not a regular file"
            }
            throw unreadable("it is \(kind); move it away")
        }
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw unreadable(String(cString: strerror(errno)).lowercased()) }
        defer { close(descriptor) }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw unreadable(String(cString: strerror(errno)).lowercased()) }
            if count == 0 { break }
            data.append(contentsOf: chunk[0..<count])
        }
        do {
            return .loaded(try decode(data))
        } catch {
            let stamp = Self.stamp(Date())
            let aside = "\(path).corrupt-\(stamp)-\(getpid())-\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
            guard rename(path, aside) == 0 else {
                throw unreadable(
                    "it is not valid state, and it cannot be set aside: \(String(cString: strerror(errno)))")
            }
            let reason = (error as? StateFileError)?.message ?? "not a valid state file"
            return .corrupt(setAsideAt: aside, reason: reason)
        }
    }

    private func unreadable(_ reason: String) -> StateFileError {
        StateFileError("cannot read state '\(path)': \(reason); it was left as it is")
    }

    /// Removes `<name>.json.*.tmp` files: every one is a killed run's, since writers hold the lock.
    private func sweepTemporaryFiles() {
        let prefix = "\(name).json."
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            unlink(directory + "/" + name)
        }
    }

    /// Writes the state atomically and durably; call it while holding the lock.
    ///
    /// - Parameter encode: the state's bytes; what it throws is reported as the write's failure.
    public func save(_ encode: () throws -> Data) throws {
        do {
            try AtomicFile.write(try encode(), to: path, durable: true)
        } catch {
            throw StateFileError("cannot write state '\(path)': \(error)")
        }
    }

    /// `2026-12-06T041500Z`: when a file was set aside, in its name (no colons, which some file systems
    /// refuse).
    static func stamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H%M%SZ", &parts)
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Why the state directory could not be used: one line naming the file.
public struct StateFileError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
