#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A time zone from the system's tz database: a TZif file (RFC 8536) under `/usr/share/zoneinfo`, read
/// without Foundation, whose Linux build in the shipped binary (FoundationEssentials) knows no zone at
/// all: `TimeZone(identifier:)` is nil for every name there and the local zone is always GMT.
///
/// The file's transitions give the offset up to its last one; after it, its footer's POSIX rule does.
/// Zone names come from outside (a log line's "resets 3pm (America/Los_Angeles)"), so a name is checked
/// to be a plain relative path of the database before any file is opened.
public struct ZoneInfo: Sendable, Equatable {
    /// The name it was found under ("America/Los_Angeles"), or the `TZ` string, or "UTC".
    public let identifier: String
    /// Transition times in UTC seconds, strictly ascending, each with the index of its local time type.
    let transitions: [Int64]
    let transitionTypes: [UInt8]
    /// The local time types' offsets east of UTC, in seconds; never empty.
    let offsets: [Int32]
    /// The rule after the last transition, from the footer (version 2 and later).
    let footer: PosixZoneRule?

    /// Coordinated Universal Time.
    public static let utc = ZoneInfo(
        identifier: "UTC", transitions: [], transitionTypes: [], offsets: [0], footer: nil)

    /// The offset east of UTC, in seconds, in force at `seconds` since the epoch (UTC).
    public func offset(atUTC seconds: Int64) -> Int {
        guard let last = transitions.last else { return footer?.offset(atUTC: seconds) ?? Int(offsets[0]) }
        if seconds >= last, let footer { return footer.offset(atUTC: seconds) }
        // The last transition at or before `seconds`; before the first, type 0 (RFC 8536 section 3.2).
        var low = 0
        var high = transitions.count
        while low < high {
            let middle = (low + high) / 2
            if transitions[middle] <= seconds { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? Int(offsets[0]) : Int(offsets[Int(transitionTypes[low - 1])])
    }

    /// The wall-clock reading at `seconds` since the epoch (UTC).
    public func civilTime(atUTC seconds: Int64) -> CivilTime {
        CivilTime(secondsSinceEpoch: seconds + Int64(offset(atUTC: seconds)))
    }

    /// The UTC second at which the clock here reads `civil`. A reading that happens twice (the hour a
    /// clock goes back) is its first; one that never happens (the hour skipped going forward) is read
    /// with the offset before the change, landing as far past the gap as it lay inside it, as `mktime`
    /// does. Nil for a reading that is no real date.
    public func utcSeconds(of civil: CivilTime) -> Int64? {
        guard civil.isValid else { return nil }
        let local = civil.secondsSinceEpoch
        // Offsets on either side of any change near the reading: zones change at most once in two days.
        let before = Int64(offset(atUTC: local - 2 * 86_400))
        let after = Int64(offset(atUTC: local + 2 * 86_400))
        let candidates = [local - before, local - after].filter { Int64(offset(atUTC: $0)) == local - $0 }
        return candidates.min() ?? local - before
    }

    // MARK: Finding zones

    /// Where the tz database lies: `TZDIR` as the C library reads it, else the usual place.
    public static func databaseDirectory(environment: [String: String]) -> String {
        if let directory = environment["TZDIR"], directory.hasPrefix("/") { return directory }
        return "/usr/share/zoneinfo"
    }

    /// The zone named `name` in the database; nil for a name that is no plain database name
    /// (`../x`, `/etc/passwd`, a NUL) or names no readable TZif file.
    public static func named(_ name: String, directory: String = "/usr/share/zoneinfo") -> ZoneInfo? {
        if name == "UTC" || name == "Etc/UTC" || name == "GMT" || name == "Z" { return utc }
        guard isDatabaseName(name), let bytes = readFile(directory + "/" + name) else { return nil }
        return try? parse(bytes, identifier: name)
    }

    /// This machine's zone as the C library finds it: `TZ` (a `:`, a database name, an absolute path
    /// to a TZif file, or a POSIX rule such as `EST5EDT`); unset, `/etc/localtime`; empty or not
    /// understood, UTC.
    public static func local(environment: [String: String], localtime: String = "/etc/localtime") -> ZoneInfo {
        let directory = databaseDirectory(environment: environment)
        guard var text = environment["TZ"] else {
            guard let bytes = readFile(localtime), let zone = try? parse(bytes, identifier: localName(localtime))
            else { return utc }
            return zone
        }
        if text.hasPrefix(":") { text.removeFirst() }
        if text.isEmpty { return utc }
        if text.hasPrefix("/") {
            if let bytes = readFile(text), let zone = try? parse(bytes, identifier: text) { return zone }
        } else if let zone = named(text, directory: directory) {
            return zone
        }
        if let rule = PosixZoneRule.parse(text) { return posix(rule, identifier: text) }
        return utc
    }

    /// A zone given by a POSIX rule alone (`TZ=EST5EDT,M3.2.0,M11.1.0`).
    public static func posix(_ rule: PosixZoneRule, identifier: String) -> ZoneInfo {
        ZoneInfo(identifier: identifier, transitions: [], transitionTypes: [], offsets: [0], footer: rule)
    }

    /// The database name `/etc/localtime` links to ("Europe/Berlin"), or "localtime".
    static func localName(_ path: String) -> String {
        var buffer = [CChar](repeating: 0, count: 1024)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return "localtime" }
        let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let range = target.firstRange(of: "zoneinfo/") else { return "localtime" }
        return String(target[range.upperBound...])
    }

    /// Segments of letters, digits, `_`, `-` and `+`, joined by single slashes, none starting with `.`
    /// or `-`: every name of the database is of that form, and no such name leaves its folder.
    static func isDatabaseName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 128 else { return false }
        return name.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { segment in
            guard let first = segment.utf8.first, first != UInt8(ascii: "."), first != UInt8(ascii: "-") else {
                return false
            }
            return segment.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
            }
        }
    }

    /// A regular file's bytes, at most 1 MiB (the largest zone file is a few KiB); never waits on a FIFO.
    static func readFile(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size <= 1 << 20 else {
            return nil
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            filled += count
        }
        return Array(bytes[0..<filled])
    }
}

extension ZoneInfo {
    /// The wall-clock reading at `date` (its fraction of a second dropped).
    public func civilTime(at date: Date) -> CivilTime {
        civilTime(atUTC: Self.seconds(of: date))
    }

    /// The moment the clock here reads `civil` (see `utcSeconds(of:)`); nil for no real date.
    public func date(of civil: CivilTime) -> Date? {
        utcSeconds(of: civil).map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }

    /// Whole seconds since the epoch, clamped to about ±290 billion years (a date from outside may be
    /// anything; converting it must not trap).
    static func seconds(of date: Date) -> Int64 {
        let value = date.timeIntervalSince1970.rounded(.down)
        guard value.isFinite else { return value > 0 ? 1 << 52 : -(1 << 52) }
        return Int64(max(-9e15, min(9e15, value)))
    }
}
