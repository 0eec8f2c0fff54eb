import Foundation
import Snapshots

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The alert state on disk, and the lock that makes a whole check cycle one at a time.
///
/// Two `check` runs started together (cron overlap) must deliver each event once: the read, decide,
/// deliver and write cycle runs under an exclusive `flock` on `alerts.lock`, and every write of
/// `alerts.json` is atomic and flushed (temporary file, fsync, rename, folder fsync). A state file that
/// cannot be read is renamed aside, not overwritten, and reported.
public struct StateFile: Sendable {
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    public var path: String { directory + "/alerts.json" }
    var lockPath: String { directory + "/alerts.lock" }

    /// What `load` found.
    public enum Loaded: Sendable, Equatable {
        /// No state yet: the first run.
        case fresh
        case loaded(AlertState)
        /// The file could not be read; it was moved to `setAsideAt`.
        case corrupt(setAsideAt: String, reason: String)
    }

    /// Runs `body` while holding the state directory's exclusive lock (waiting for it), creating the
    /// directory (mode 0700) when missing. The lock goes with the process, even on `kill -9`.
    public func withLock<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StateFileError(
                "cannot create state directory '\(directory)': \(error.localizedDescription.lowercased())")
        }
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StateFileError("cannot open '\(lockPath)': \(String(cString: strerror(errno)).lowercased())")
        }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw StateFileError("cannot lock '\(lockPath)': \(String(cString: strerror(errno)).lowercased())")
            }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    /// Reads the state; call it while holding the lock.
    public func load() -> Loaded {
        guard let data = FileManager.default.contents(atPath: path) else { return .fresh }
        do {
            let state = try SnapshotCodec.makeDecoder().decode(AlertState.self, from: data)
            guard state.schemaVersion >= 1 else { throw StateFileError("schemaVersion \(state.schemaVersion)") }
            return .loaded(state)
        } catch {
            let aside = "\(path).corrupt-\(Int(Date().timeIntervalSince1970))"
            rename(path, aside)
            let reason = (error as? StateFileError)?.message ?? "not a valid state file"
            return .corrupt(setAsideAt: aside, reason: reason)
        }
    }

    /// Writes the state atomically and durably; call it while holding the lock.
    public func save(_ state: AlertState) throws {
        do {
            let data = try SnapshotCodec.makeEncoder(pretty: false).encode(state)
            try AtomicFile.write(data, to: path, durable: true)
        } catch {
            throw StateFileError("cannot write state '\(path)': \(error)")
        }
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
