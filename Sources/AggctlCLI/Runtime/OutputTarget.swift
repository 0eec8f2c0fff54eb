import Portable
import Snapshots

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where `--out` sends a command's output: standard output for `-`, else a regular file written
/// atomically beside it.
///
/// An atomic write renames a temporary file over the target, and a rename replaces whatever is there: run
/// as root, `--out /dev/null` once replaced the device node with a regular file. So the path is looked at
/// before anything is read, and again just before the rename: only a missing path or a regular file (a
/// symbolic link followed to a regular file, whose target is then the one replaced) is written; a folder,
/// a device, a FIFO, a socket or a link to nothing is refused and left as it was.
enum OutputTarget: Equatable {
    case standardOutput
    /// The file to replace (a link already followed), or the missing path to create.
    case file(String)

    /// `--out`'s value as a target, or a usage error naming the flag when the path may not be written.
    static func parse(_ text: String, command: String) throws -> OutputTarget {
        if text == "-" { return .standardOutput }
        guard !text.isEmpty else {
            throw UsageError("--out: '' is not a file path; use - for stdout", command: command)
        }
        switch resolve(text) {
        case .success(let path): return .file(path)
        case .failure(let refusal): throw UsageError("--out: '\(text)' \(refusal.reason)", command: command)
        }
    }

    /// Writes `bytes` to the target: the file atomically; standard output as any command's data (a write
    /// that does not arrive there makes the run fail in `Aggctl.run`).
    func write(_ bytes: Data, console: Console) throws {
        try stream(console: console) { sink in
            bytes.withUnsafeBytes { sink.write(bytes: $0) }
        }
    }

    /// Sends what `produce` writes into its sink to the target as it comes: standard output, or the file
    /// through a temporary one beside it, renamed over the path only when every byte was written.
    func stream(console: Console, _ produce: (any TextSink) throws -> Void) throws {
        switch self {
        case .standardOutput:
            try produce(console.output)
        case .file(let path):
            // Looked at again: the path may have become something else since the run began.
            if case .failure(let refusal) = OutputTarget.resolve(path) {
                throw CommandFailure("cannot write --out '\(path)': it \(refusal.reason)")
            }
            do {
                try AtomicFile.write(to: path, mode: 0o644) { descriptor in
                    let sink = FileDescriptorSink(descriptor: descriptor)
                    try produce(sink)
                    return sink.failure ?? 0
                }
            } catch let failure as CommandFailure {
                throw failure
            } catch {
                throw CommandFailure("cannot write --out '\(path)': \(error)")
            }
        }
    }

    /// Why a path may not be written, as the rest of a sentence that starts with the path.
    struct Refusal: Error, Equatable {
        var reason: String
    }

    /// The path to write for `path`: itself when missing or a regular file, a link's final target when
    /// that is a regular file.
    static func resolve(_ path: String) -> Result<String, Refusal> {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return .success(path) }
            return .failure(Refusal(reason: "cannot be looked at: \(String(cString: strerror(errno)).lowercased())"))
        }
        var resolved = path
        if (info.st_mode & S_IFMT) == S_IFLNK {
            guard let real = realpath(path, nil) else {
                return .failure(Refusal(reason: "is a symbolic link to nothing; expected a regular file"))
            }
            resolved = String(cString: real)
            free(real)
            guard stat(resolved, &info) == 0 else {
                return .failure(Refusal(reason: "is a symbolic link to nothing; expected a regular file"))
            }
        }
        let kind: String
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .success(resolved)
        case S_IFDIR: kind = "a folder"
        case S_IFCHR, S_IFBLK: kind = "a device"
        case S_IFIFO: kind = "a FIFO"
        case S_IFSOCK: kind = "a socket"
        default: kind = "not a regular file"
        }
        let through = resolved == path ? "" : "a symbolic link to "
        return .failure(Refusal(reason: "is \(through)\(kind); expected a regular file, a new path or - for stdout"))
    }
}
