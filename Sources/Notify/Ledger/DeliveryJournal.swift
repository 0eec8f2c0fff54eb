import Portable

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The facts a ledger records between two writes of its state file (`<name>.journal` beside it): each
/// delivery, as it happens.
public struct DeliveryJournal: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
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
    public func reserve(for entries: [[String: String]]) throws -> JournalReservation {
        guard !entries.isEmpty else { return JournalReservation(path: path) }
        // Not O_APPEND: recording writes in place, and pwrite on an O_APPEND descriptor appends on Linux.
        let descriptor = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure(errno) }
        let start = lseek(descriptor, 0, SEEK_END)
        guard start >= 0 else {
            let code = errno
            close(descriptor)
            throw failure(code)
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
            throw failure(code)
        }
        return JournalReservation(path: path, slots: slots, start: Int64(start), descriptor: descriptor)
    }

    private func failure(_ code: Int32) -> StateFileError {
        StateFileError("cannot write '\(path)': \(String(cString: strerror(code)).lowercased())")
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
    public func entries() throws -> [[String: String]] {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return [] }
            throw unreadable(String(cString: strerror(errno)).lowercased())
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw unreadable("it is not a regular file") }
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw unreadable(String(cString: strerror(errno)).lowercased()) }
        defer { close(descriptor) }
        let data: Data
        do {
            data = try FileSystem.readAll(descriptor, expecting: Int(info.st_size))
        } catch {
            throw unreadable("\(error)")
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

    private func unreadable(_ reason: String) -> StateFileError {
        StateFileError(
            "cannot read '\(path)': \(reason); nothing was delivered, so that no delivery it records goes "
                + "out twice")
    }

    /// Removes the journal, once a state that includes it was saved.
    public func clear() {
        unlink(path)
    }
}

/// Room claimed in the journal by `DeliveryJournal.reserve(for:)`: where each reserved entry's line lies,
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
        let line = DeliveryJournal.line(entry)
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
