import Portable
import Snapshots

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// This machine's stable device id, kept in the state directory so that it survives host renames.
enum DeviceIdentity {
    static let fileName = "device-id"

    /// Reads the id from `stateDirectory`, creating it (mode 0600) on first use from the host name and a
    /// random suffix. Two first runs at once agree: the file is created exclusively and the loser reads it.
    static func loadOrCreate(stateDirectory: String, hostName: String) throws -> DeviceID {
        let path = stateDirectory + "/" + fileName
        if let existing = try read(path) { return existing }
        try createDirectory(stateDirectory)
        let shortHost = hostName.split(separator: ".").first.map(String.init) ?? ""
        let base = DeviceID.sanitizing(shortHost.lowercased(), maxLength: 48)?.rawValue ?? "device"
        let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let id = DeviceID(rawValue: "\(base)-\(String(repeating: "0", count: 8 - suffix.count))\(suffix)")!

        // Write a temporary file, then link() it into place: creation is exclusive (link fails if the id
        // exists) and the id file is never seen empty or half-written.
        let temporary = "\(path).\(getpid()).\(suffix).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CommandFailure("cannot create device id '\(path)': \(String(cString: strerror(errno)))")
        }
        defer { unlink(temporary) }
        let line = id.rawValue + "\n"
        let written = line.withCString { write(descriptor, $0, strlen($0)) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == line.utf8.count, synced else {
            throw CommandFailure("cannot write device id '\(path)'")
        }
        if link(temporary, path) != 0 {
            if errno == EEXIST, let existing = try read(path) { return existing }
            throw CommandFailure("cannot create device id '\(path)': \(String(cString: strerror(errno)))")
        }
        return id
    }

    /// The id a dry run shows, creating nothing: the one kept in `stateDirectory`, else `<host>-dryrun`
    /// (the real one gets a random suffix when it is first created).
    static func existingOrPreview(stateDirectory: String, hostName: String) throws -> DeviceID {
        if let existing = try read(stateDirectory + "/" + fileName) { return existing }
        let shortHost = hostName.split(separator: ".").first.map(String.init) ?? ""
        let base = DeviceID.sanitizing(shortHost.lowercased(), maxLength: 48)?.rawValue ?? "device"
        return DeviceID(rawValue: "\(base)-dryrun")!
    }

    private static func read(_ path: String) throws -> DeviceID? {
        guard let data = FileSystem.contents(of: path) else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingWhitespace()
        guard let id = DeviceID(rawValue: text) else {
            throw CommandFailure(
                "device id file '\(path)' holds '\(RecordCodec.printable(text))', not a valid device id; "
                    + "fix or remove it")
        }
        return id
    }

    static func createDirectory(_ path: String) throws {
        do {
            try FileSystem.createFolders(path)
        } catch {
            throw CommandFailure("cannot create state directory '\(path)': \(error.reason)")
        }
    }
}
