import Portable

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A store's shared record key: 32 random bytes, and its id (the first 8 bytes of its SHA-256, in hex),
/// which envelopes name so that readers holding several keys (rotation) pick the right one.
///
/// Its bytes never leave this type but to the cipher: its description is its id.
public struct RecordKey: Sendable, Equatable, CustomStringConvertible {
    let bytes: [UInt8]
    public let id: String

    /// The key file's form: `aggctl-key-1:` and the key in base64url, one line.
    public static let filePrefix = "aggctl-key-1:"

    init(bytes: [UInt8]) throws {
        precondition(bytes.count == RecordCipher.keyLength, "a record key has 32 bytes")
        self.bytes = bytes
        id = try RecordCipher.sha256(bytes).prefix(8).map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
    }

    /// A new key from the system's random source.
    public static func generate() throws -> RecordKey {
        try RecordKey(bytes: try RecordCipher.randomBytes(RecordCipher.keyLength))
    }

    public var description: String { "key \(id)" }

    /// The key file's text.
    var fileText: String {
        Self.filePrefix
            + Data(bytes).base64EncodedString().replacing("+", with: "-").replacing("/", with: "_")
            .replacing("=", with: "") + "\n"
    }

    /// Writes a new key file at `path`: mode 0600, and never over anything already there.
    public func write(to path: String) throws(KeyFileError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason = errno == EEXIST ? "it exists already; a key file is never replaced" : Self.reason(errno)
            throw KeyFileError(path: path, reason: reason)
        }
        defer { close(descriptor) }
        let text = Array(fileText.utf8)
        let code = text.withUnsafeBytes { Descriptor.writeAll(descriptor, $0) }
        guard code == 0, fsync(descriptor) == 0 else {
            unlink(path)
            throw KeyFileError(path: path, reason: Self.reason(code == 0 ? errno : code))
        }
    }

    /// Reads the key file at `path`. Refused: a file others can read or write (mode past 0600), one that
    /// is not a regular file, one without the key's line.
    public static func read(from path: String) throws(KeyFileError) -> RecordKey {
        var info = stat()
        guard stat(path, &info) == 0 else { throw KeyFileError(path: path, reason: reason(errno)) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw KeyFileError(path: path, reason: "it is not a regular file")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw KeyFileError(
                path: path,
                reason: "others may read it (mode \(String(info.st_mode & 0o777, radix: 8))); chmod 600 it first")
        }
        guard info.st_size <= 4096, let data = FileSystem.contents(of: path) else {
            throw KeyFileError(path: path, reason: "it cannot be read as a key file")
        }
        // Its first line, cut at the first CR or LF byte: a file saved with CRLF line ends (an editor on
        // Windows) is the same key; "\r\n" is one Character, so the cut is made on the bytes.
        let text = String(decoding: data.prefix { $0 != 0x0A && $0 != 0x0D }, as: UTF8.self).trimmingBlanks()
        guard text.hasPrefix(filePrefix) else {
            throw KeyFileError(path: path, reason: "it is not an aggctl key file (no '\(filePrefix)' line)")
        }
        var encoded = String(text.dropFirst(filePrefix.count)).replacing("-", with: "+").replacing("_", with: "/")
        while encoded.utf8.count % 4 != 0 { encoded += "=" }
        guard let bytes = Data(base64Encoded: encoded), bytes.count == RecordCipher.keyLength else {
            throw KeyFileError(path: path, reason: "its key is not 32 bytes of base64url")
        }
        do {
            return try RecordKey(bytes: Array(bytes))
        } catch {
            throw KeyFileError(path: path, reason: "\(error)")
        }
    }

    private static func reason(_ code: Int32) -> String {
        String(cString: strerror(code)).lowercased()
    }
}

/// A key file that cannot be used: one line naming it, never its content.
public struct KeyFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "key file '\(path)': \(reason)" }
}
