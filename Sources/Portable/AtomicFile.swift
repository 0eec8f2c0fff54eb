#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whole-file writes that readers see complete or not at all: a temporary file in the same folder,
/// then a rename over the target.
public enum AtomicFile {
    /// Writes a file aggctl keeps for itself (a cache, a memo, the state a collector resumes from):
    /// atomically, not flushed, creating its folder first, private to this user (0700), when missing.
    public static func writePrivate(_ data: Data, to path: String) throws {
        try FileSystem.createFolders(FileSystem.parent(of: path))
        try write(data, to: path)
    }

    /// Writes `data` to `path` atomically.
    ///
    /// - Parameters:
    ///   - mode: permissions of the new file.
    ///   - durable: also flush the file and its folder, so the new content survives a power cut; without
    ///     it a crash can leave the old content or none, never a mixture.
    public static func write(_ data: Data, to path: String, mode: mode_t = 0o600, durable: Bool = false) throws {
        try write(to: path, mode: mode, durable: durable) { descriptor in
            data.withUnsafeBytes { Descriptor.writeAll(descriptor, $0) }
        }
    }

    /// Writes what `contents` writes to the descriptor it is given, atomically: a large output is sent on
    /// as it is made instead of whole from memory.
    ///
    /// - Parameter contents: writes the file; returns 0, or the `errno` of a write that failed. When it
    ///   throws or fails, the target is left as it was and the temporary file removed.
    public static func write(
        to path: String, mode: mode_t = 0o600, durable: Bool = false, contents: (Int32) throws -> Int32
    ) throws {
        let temporary = "\(path).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw failure("create", temporary) }
        var failed: Error?
        do {
            let code = try contents(descriptor)
            if code != 0 {
                errno = code
                failed = failure("write", temporary)
            }
        } catch {
            failed = error
        }
        if failed == nil && durable && fsync(descriptor) != 0 { failed = failure("flush", temporary) }
        if close(descriptor) != 0 && failed == nil { failed = failure("close", temporary) }
        if failed == nil && rename(temporary, path) != 0 { failed = failure("replace", path) }
        if let failed {
            unlink(temporary)
            throw failed
        }
        if durable {
            let folder = FileSystem.parent(of: path)
            let directory = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if directory >= 0 {
                fsync(directory)
                close(directory)
            }
        }
    }

    private static func failure(_ operation: String, _ path: String) -> Error {
        FileWriteError(operation: operation, target: path, reason: String(cString: strerror(errno)).lowercased())
    }
}

/// Why a file could not be written: `cannot <operation> '<target>': <reason>`, one lowercase line.
public struct FileWriteError: Error, Equatable, Sendable, CustomStringConvertible {
    public var operation: String
    public var target: String
    /// The system's reason (`no space left on device`), lowercase.
    public var reason: String

    public init(operation: String, target: String, reason: String) {
        self.operation = operation
        self.target = target
        self.reason = reason
    }

    public var description: String { "cannot \(operation) '\(target)': \(reason)" }
}
