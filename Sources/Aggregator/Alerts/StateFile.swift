import Portable
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

    var journalPath: String { directory + "/\(name).journal" }

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
    /// - Parameter quickly: a reader of the file's usual shape, straight from its bytes, that gives nil
    ///   for anything else; Foundation's decoder then reads the file, and judges whether it is valid.
    public func load<Value: Decodable & Sendable & Equatable>(
        _ type: Value.Type, quickly: ((UnsafeRawBufferPointer) -> Value?)? = nil
    ) throws -> Loaded<Value> {
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
        if let quickly, let value = data.withUnsafeBytes(quickly) { return .loaded(value) }
        do {
            return .loaded(try SnapshotCodec.makeDecoder().decode(Value.self, from: data))
        } catch {
            let stamp = RFC3339.format(Date()).replacing(":", with: "")
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
    /// - Parameter quickly: a writer of the bytes `JSONEncoder` would write (or bytes that decode the
    ///   same), straight from the value; nil from it, or no writer, and `JSONEncoder` writes them.
    public func save<Value: Encodable>(_ state: Value, quickly: ((Value) -> Data?)? = nil) throws {
        do {
            let data = try quickly?(state) ?? SnapshotCodec.makeEncoder(pretty: false).encode(state)
            try AtomicFile.write(data, to: path, durable: true)
        } catch {
            throw StateFileError("cannot write state '\(path)': \(error)")
        }
    }

    // MARK: The journal

    // Between two writes of the state, small facts (an event delivered to a backend) are appended to
    // `alerts.journal`, one JSON object a line, instead of rewriting the whole state for each: that
    // made delivering N events cost N whole writes (2000 events took 42 s). The next `load` folds the
    // journal in; a state write that includes everything clears it. A line cut short by a crash is
    // ignored. Appends are not flushed one by one: they survive a killed process, and a power cut at
    // worst repeats a delivery, with its id.

    /// Claims room in the journal for every entry a delivery may record, before anything is delivered.
    ///
    /// A delivery that succeeded but could not be recorded (a full disk) went out again on the next run.
    /// So each entry's line is written now as a blank line of its length, and recording it later
    /// overwrites those bytes in place, needing no new room: when there is no room now, nothing is
    /// delivered (fail closed), and the events stay queued. Blank lines are no entries to `journal()`.
    ///
    /// The journal stays open in the reservation until the run ends: recording needs no new open, so a
    /// state folder that turns read-only (or whose file table is full) after the deliveries began cannot
    /// keep a delivery from being recorded.
    public func reserveJournal(for entries: [[String: String]]) throws -> JournalReservation {
        guard !entries.isEmpty else { return JournalReservation(path: journalPath) }
        // Not O_APPEND: recording writes in place, and pwrite on an O_APPEND descriptor appends on Linux.
        let descriptor = open(journalPath, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw journalFailure(errno) }
        let start = lseek(descriptor, 0, SEEK_END)
        guard start >= 0 else {
            let code = errno
            close(descriptor)
            throw journalFailure(code)
        }
        var slots: [Data: Int64] = [:]
        var blanks = Data()
        for entry in entries {
            let line = Self.line(entry)
            slots[line] = Int64(start) + Int64(blanks.count)
            blanks.append(Data(repeating: UInt8(ascii: " "), count: line.count - 1))
            blanks.append(0x0A)
        }
        let code = blanks.withUnsafeBytes { Descriptor.writeAll(descriptor, $0) }
        guard code == 0 else {
            // What was written of the blanks is taken back; it would only be blank lines anyway.
            _ = ftruncate(descriptor, off_t(start))
            close(descriptor)
            throw journalFailure(code)
        }
        return JournalReservation(path: journalPath, slots: slots, start: Int64(start), descriptor: descriptor)
    }

    private func journalFailure(_ code: Int32) -> StateFileError {
        StateFileError("cannot write '\(journalPath)': \(String(cString: strerror(code)).lowercased())")
    }

    /// One entry as its journal line: sorted keys, a line feed at the end.
    static func line(_ entry: [String: String]) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // An object of strings always encodes.
        return ((try? encoder.encode(entry)) ?? Data("{}".utf8)) + Data([0x0A])
    }

    /// The journal's whole entries, oldest first (none when there is no journal).
    ///
    /// - Throws: when a journal is there but cannot be read (permissions, not a regular file, an I/O
    ///   error): taken as empty, the deliveries it records would go out again.
    public func journal() throws -> [[String: String]] {
        var info = stat()
        guard lstat(journalPath, &info) == 0 else {
            if errno == ENOENT { return [] }
            throw journalUnreadable(String(cString: strerror(errno)).lowercased())
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw journalUnreadable("it is not a regular file") }
        let descriptor = open(journalPath, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw journalUnreadable(String(cString: strerror(errno)).lowercased()) }
        defer { close(descriptor) }
        let data: Data
        do {
            data = try FileSystem.readAll(descriptor, expecting: Int(info.st_size))
        } catch {
            throw journalUnreadable("\(error)")
        }
        var entries: [[String: String]] = []
        var start = data.startIndex
        while let end = data[start...].firstIndex(of: 0x0A) {
            if let entry = try? JSONDecoder().decode([String: String].self, from: data[start..<end]) {
                entries.append(entry)
            }
            start = data.index(after: end)
        }
        return entries
    }

    private func journalUnreadable(_ reason: String) -> StateFileError {
        StateFileError(
            "cannot read '\(journalPath)': \(reason); nothing was delivered, so that no delivery it records goes "
                + "out twice")
    }

    /// Removes the journal, once a state that includes it was saved.
    public func clearJournal() {
        unlink(journalPath)
    }
}

/// Room claimed in the journal by `StateFile.reserveJournal(for:)`: where each reserved entry's line lies,
/// and the journal held open to record them.
///
/// A class because it owns a file descriptor, closed when the reservation goes.
public final class JournalReservation: Sendable {
    let path: String
    let slots: [Data: Int64]
    /// The journal's length before the room was claimed.
    let start: Int64
    /// The journal, open for writing since the room was claimed; -1 when nothing was reserved.
    private let descriptor: Int32

    init(path: String, slots: [Data: Int64] = [:], start: Int64 = 0, descriptor: Int32 = -1) {
        self.path = path
        self.slots = slots
        self.start = start
        self.descriptor = descriptor
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Gives the room back when nothing was recorded in it: a backend that is down every run would
    /// otherwise grow the journal by a blank line per event per run, since such a run writes no state
    /// (which would clear the journal).
    public func giveBack() {
        guard !slots.isEmpty, descriptor >= 0 else { return }
        _ = ftruncate(descriptor, off_t(start))
    }

    /// Records a reserved entry in the room claimed for it; an entry not reserved is appended.
    ///
    /// - Throws: when the bytes could not be written.
    public func record(_ entry: [String: String]) throws {
        let line = StateFile.line(entry)
        var descriptor = self.descriptor
        if descriptor < 0 {
            descriptor = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw failure(errno) }
        }
        defer { if descriptor != self.descriptor { close(descriptor) } }
        if let offset = slots[line] {
            let written = line.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
            guard written == line.count else { throw failure(written < 0 ? errno : EIO) }
        } else {
            guard lseek(descriptor, 0, SEEK_END) >= 0 else { throw failure(errno) }
            let code = line.withUnsafeBytes { Descriptor.writeAll(descriptor, $0) }
            guard code == 0 else { throw failure(code) }
        }
    }

    private func failure(_ code: Int32) -> StateFileError {
        StateFileError("cannot write '\(path)': \(String(cString: strerror(code)).lowercased())")
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
