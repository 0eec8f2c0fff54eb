/// The few file-system questions FoundationEssentials' `FileManager` answers differently or not at all.
public enum FileSystem {
    /// The folder `path` is in, as `NSString.deletingLastPathComponent` gives it: trailing slashes
    /// dropped first; "/" for a file at the top, "" for a bare name.
    public static func parent(of path: String) -> String {
        var path = Substring(path)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        guard let slash = path.lastIndex(of: "/") else { return "" }
        if slash == path.startIndex { return "/" }
        var parent = path[..<slash]
        while parent.count > 1, parent.hasSuffix("/") { parent = parent.dropLast() }
        return String(parent)
    }

    /// Creates the folder `path` and the folders above it that are missing, each with `mode` (a folder
    /// that exists is left as it is). FileManager's `createDirectory` does the same, but its first use
    /// builds the manager, a tenth of a millisecond of every run that writes a cache.
    /// - Throws: a `POSIXError` when a folder cannot be made or something else is in its place.
    public static func createFolders(_ path: String, mode: mode_t = 0o700) throws {
        if path.isEmpty || isFolder(path) == true { return }
        let parent = parent(of: path)
        if !parent.isEmpty, parent != path { try createFolders(parent, mode: mode) }
        guard mkdir(path, mode) == 0 || (errno == EEXIST && isFolder(path) == true) else {
            let code = errno == EEXIST ? ENOTDIR : errno
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
    }

    /// The first executable file `name` in the folders of `environment`'s `PATH` (default `/usr/bin:/bin`),
    /// as a shell finds a program. Relative entries are passed over: what they name depends on the
    /// folder a run happens to start in.
    public static func program(_ name: String, in environment: [String: String]) -> String? {
        for folder in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") where folder.hasPrefix("/") {
            let candidate = "\(folder)/\(name)"
            if access(candidate, X_OK) == 0, isFolder(candidate) == false { return candidate }
        }
        return nil
    }

    /// Whether anything is at `path` (following links).
    public static func exists(_ path: String) -> Bool {
        isFolder(path) != nil
    }

    /// Whether `path` is a folder (following links); nil when nothing is there.
    public static func isFolder(_ path: String) -> Bool? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The user's home folder: `HOME`, else the password database's entry (Foundation's
    /// `NSHomeDirectory()`).
    public static func homeDirectory() -> String {
        if let home = getenv("HOME").map({ String(cString: $0) }), !home.isEmpty { return home }
        if let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir { return String(cString: directory) }
        return "/"
    }

    /// Everything readable from `descriptor` until its end (standard input for `--from -`, a cache file).
    ///
    /// - Parameter size: how much is expected (a file's size): the buffer starts a byte larger, so that
    ///   a file read whole takes one `read` and the one that sees its end.
    public static func readAll(_ descriptor: Int32, expecting size: Int = 65535) throws -> Data {
        var data = Data(count: size + 1)
        var filled = 0
        while true {
            if filled == data.count { data.count += max(4096, data.count) }
            let wanted = data.count - filled
            let count = data.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, wanted) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw ReadFailure(code: errno)
            }
            filled += count
        }
        data.count = filled
        return data
    }

    /// A failed `read`, with its errno.
    /// What `descriptor` gives until its end, `maximum` bytes, or `seconds` past the call, whichever is
    /// first; what came until then (nothing on a failure). For input a program waits on but need not
    /// trust to end: Claude Code's document on `statusline`'s stdin, from a writer that may never close it.
    public static func readBriefly(_ descriptor: Int32, maximum: Int, seconds: Double) -> Data {
        var data = Data()
        let deadline = Date().addingTimeInterval(seconds)
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while data.count < maximum {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { break }
            var watched = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&watched, 1, Int32(min(left * 1000, 60_000).rounded(.up)))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { break }
            let wanted = min(chunk.count, maximum - data.count)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, wanted) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            data.append(contentsOf: chunk[0..<count])
        }
        return data
    }

    public struct ReadFailure: Error, CustomStringConvertible {
        public var code: Int32
        public var description: String { String(cString: strerror(code)) }
    }

    /// Sleeps for `seconds` (Foundation's `Thread.sleep(forTimeInterval:)`).
    public static func sleep(seconds: Double) {
        guard seconds > 0 else { return }
        var time = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        var left = timespec()
        while nanosleep(&time, &left) != 0 && errno == EINTR { time = left }
    }
}

extension Error {
    /// A short reason for messages: the POSIX reason a file error carries ("no such file or directory"),
    /// else the error's own words (Foundation's `localizedDescription` is not in FoundationEssentials).
    public var reason: String {
        if let posix = self as? POSIXError { return String(cString: strerror(posix.code.rawValue)).lowercased() }
        if let cocoa = self as? CocoaError, let posix = cocoa.underlying as? POSIXError {
            return String(cString: strerror(posix.code.rawValue)).lowercased()
        }
        if let failure = self as? FileSystem.ReadFailure { return failure.description.lowercased() }
        return "\(self)"
    }
}

extension FileSystem {
    /// The whole file at `path`, or nil when it cannot be opened or read (as `FileManager.contents(atPath:)`,
    /// without its progress reporting and extra calls: one `open`, `fstat` and `read` for a cache file).
    public static func contents(of path: String) -> Data? {
        guard let (descriptor, size) = openRegularFile(path) else { return nil }
        defer { close(descriptor) }
        return try? readAll(descriptor, expecting: size)
    }

    /// How much of a kept file `turnsAway` is shown before the file is read whole: enough for any header
    /// aggctl writes (magic, versions, the store's name, a fingerprint).
    public static let headSize = 4096

    /// The regular file at `path`, read whole unless `turnsAway` rejects its first `headSize` bytes; nil
    /// when it is turned away, missing or unreadable.
    ///
    /// For the caches kept per state of a store: on a store that changes between runs (a team's), every
    /// run finds the files of an older state, and reading megabytes only to drop them for their header
    /// was a run's largest read after the records'. `turnsAway` sees unchecked bytes, so it may only
    /// reject; a file no larger than the head is read whole without it (its reader judges it all anyway).
    public static func contents(of path: String, unless turnsAway: (UnsafeRawBufferPointer) -> Bool) -> Data? {
        guard let (descriptor, size) = openRegularFile(path) else { return nil }
        defer { close(descriptor) }
        if headTurnsAway(descriptor, size: size, turnsAway) { return nil }
        return try? readAll(descriptor, expecting: size)
    }

    /// Whether `turnsAway` rejects the first `headSize` bytes of a file of `size` (never for a file no
    /// larger than that, or one whose head cannot be read). Read in place (`pread`): the descriptor's
    /// offset stays at the start.
    static func headTurnsAway(_ descriptor: Int32, size: Int, _ turnsAway: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        guard size > headSize else { return false }
        return withUnsafeTemporaryAllocation(byteCount: headSize, alignment: 16) { head in
            var filled = 0
            while filled < headSize {
                let count = pread(descriptor, head.baseAddress! + filled, headSize - filled, off_t(filled))
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                filled += count
            }
            return turnsAway(UnsafeRawBufferPointer(head))
        }
    }

    /// `path` opened for reading, and its size, when it is a regular file; the caller closes it. Opened
    /// without blocking: a FIFO in a cache file's place must not hang the run (it is refused here).
    static func openRegularFile(_ path: String) -> (descriptor: Int32, size: Int)? {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            return nil
        }
        return (descriptor, Int(info.st_size))
    }
}

/// A file's bytes mapped read-only into memory: a large cache file is read without a copy, its pages
/// shared with the page cache. Only for files that are replaced by rename, never rewritten in place (the
/// caches): a mapped file truncated underneath would fault on access.
public final class MappedFile: @unchecked Sendable {
    public let bytes: UnsafeRawBufferPointer

    /// Maps the regular, non-empty file at `path` unless `turnsAway` rejects its first bytes (as
    /// `FileSystem.contents(of:unless:)` judges them): nil when it is turned away or cannot be opened or
    /// mapped. A file turned away is never mapped: mapping populates every page first.
    public init?(path: String, unless turnsAway: (UnsafeRawBufferPointer) -> Bool = { _ in false }) {
        guard let (descriptor, size) = FileSystem.openRegularFile(path) else { return nil }
        defer { close(descriptor) }
        guard size > 0, !FileSystem.headTurnsAway(descriptor, size: size, turnsAway) else { return nil }
        #if os(Linux)
            // Every page is about to be read: mapped in one call instead of a fault per few pages.
            let flags = MAP_PRIVATE | MAP_POPULATE
        #else
            let flags = MAP_PRIVATE
        #endif
        guard let address = mmap(nil, size, PROT_READ, flags, descriptor, 0), address != MAP_FAILED else {
            return nil
        }
        bytes = UnsafeRawBufferPointer(start: address, count: size)
    }

    deinit {
        munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count)
    }
}
