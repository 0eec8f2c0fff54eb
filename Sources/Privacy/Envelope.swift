import Portable
import Serialization
import TextSafety

/// A sealed record as the store holds it (the record format, "Encrypted records"):
/// `{"aggctlEncrypted": 1, "alg": "chacha20poly1305", "keyID", "nonce", "ciphertext"}`, the record's JSON
/// sealed with ChaCha20-Poly1305 under the store's key and a random nonce, the record's file name as the
/// associated data (a record moved to another machine's name does not open).
public enum Envelope {
    public static let algorithm = "chacha20poly1305"

    /// Whether `bytes` hold an envelope rather than a record (`SealedRecordMark`).
    public static func isEnvelope(_ bytes: UnsafeRawBufferPointer) -> Bool {
        SealedRecordMark.appears(in: bytes)
    }

    private struct Fields: Codable {
        var aggctlEncrypted: Int
        var alg: String
        var keyID: String
        var nonce: String
        var ciphertext: String
    }

    /// The key id an envelope names; nil for anything that is not an envelope.
    public static func keyID(of data: Data) -> String? {
        guard data.withUnsafeBytes(isEnvelope), let fields = data.withUnsafeBytes(EnvelopeFields.init) else {
            return nil
        }
        return printable(fields.keyID)
    }

    /// `record` (a record's JSON) sealed under `key` for the file `fileName`, as the envelope's bytes.
    public static func seal(_ record: Data, fileName: String, key: RecordKey) throws -> Data {
        let nonce = try RecordCipher.randomBytes(RecordCipher.nonceLength)
        let sealed = try RecordCipher.seal(
            Array(record), nonce: nonce, associated: Array(fileName.utf8), key: key.bytes)
        let fields = Fields(
            aggctlEncrypted: 1, alg: algorithm, keyID: key.id, nonce: Data(nonce).base64EncodedString(),
            ciphertext: Data(sealed).base64EncodedString())
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(fields) + Data([0x0A])
    }

    /// The record an envelope seals, opened with whichever of `keys` it names.
    /// - Throws: `EnvelopeError`: not an envelope this reader knows, no key of its id, or one that does not
    ///   authenticate (tampered with, or read under another file name).
    public static func open(_ data: Data, fileName: String, keys: [RecordKey]) throws(EnvelopeError) -> Data {
        var record = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        let opened = data.withUnsafeBytes { envelope in
            Result { () throws(EnvelopeError) in
                try open(envelope, fileName: fileName, keys: keys) { count in
                    record = .allocate(byteCount: max(count, 1), alignment: 1)
                    return record
                }
            }
        }
        switch opened {
        case .success(let count):
            guard let base = record.baseAddress else { return Data() }
            return Data(bytesNoCopy: base, count: count, deallocator: .custom { pointer, _ in pointer.deallocate() })
        case .failure(let error):
            record.deallocate()
            throw error
        }
    }

    /// `open` into the memory `room` gives for the record's length (a store's read buffer: the record is
    /// not copied again); the record's length.
    ///
    /// `room` is called once the envelope has been read, and may reuse the envelope's own memory: nothing is
    /// read from `envelope` after it.
    public static func open(
        _ envelope: UnsafeRawBufferPointer, fileName: String, keys: [RecordKey],
        into room: (Int) -> UnsafeMutableRawBufferPointer
    ) throws(EnvelopeError) -> Int {
        // Read by a scanner of its own flat shape, not JSONDecoder: that took half of a cold merge of
        // sealed records (191 of 377 M instructions for 1000 envelopes).
        guard let fields = EnvelopeFields(envelope) else { throw .malformed("not a readable envelope") }
        guard fields.aggctlEncrypted == 1 else {
            throw .malformed("envelope version \(fields.aggctlEncrypted) is not one this reader knows")
        }
        guard fields.alg == algorithm else {
            throw .malformed("the cipher '\(Self.printable(fields.alg))' is not one this reader knows")
        }
        let (nonce, sealed) = (fields.nonce, fields.ciphertext)
        guard nonce.count == RecordCipher.nonceLength else {
            throw .malformed("its nonce is not \(RecordCipher.nonceLength) bytes")
        }
        guard sealed.count >= RecordCipher.tagLength else { throw .malformed("its ciphertext is shorter than a tag") }
        guard let key = keys.first(where: { $0.id == fields.keyID }) else {
            throw .noKey(Self.printable(fields.keyID))
        }
        let count = sealed.count - RecordCipher.tagLength
        let output = room(count)
        let opened: Bool
        do {
            opened = try sealed.withUnsafeBytes { sealed in
                try RecordCipher.open(
                    sealed, nonce: Array(nonce), associated: Array(fileName.utf8), key: key.bytes,
                    into: UnsafeMutableRawBufferPointer(rebasing: output[0..<count]))
            }
        } catch {
            throw .unavailable("\(error)")
        }
        guard opened else { throw .authenticationFailed(key.id) }
        return count
    }

    /// An id or name from a hostile file, shown in a problem as it is: controls escaped, at most 64
    /// characters (an id with spaces was shown with them removed, naming a key no one has).
    private static func printable(_ text: String) -> String {
        SafeText.line(text, limit: 64)
    }
}

/// Why an envelope could not be opened: one line for the file's problem.
public enum EnvelopeError: Error, Sendable, Equatable, CustomStringConvertible {
    case malformed(String)
    /// No key given has this id.
    case noKey(String)
    /// The key of this id does not open it: it was changed, or it is read under another file name.
    case authenticationFailed(String)
    /// The cipher cannot run on this machine.
    case unavailable(String)

    public var description: String {
        switch self {
        case .malformed(let reason): "encrypted, but \(reason)"
        case .noKey(let id): "encrypted for key \(id), which this machine does not have (--key-file)"
        case .authenticationFailed(let id):
            "encrypted for key \(id), but it does not open: changed since it was sealed, or sealed for another file name"
        case .unavailable(let reason): reason
        }
    }
}

/// An envelope's members, read from its bytes: one JSON object of strings and whole numbers, each key
/// once. Anything else (nesting, escapes but `\/`, a member twice, trailing bytes) is no envelope.
///
/// The nonce and the ciphertext are decoded from base64 where they lie (a ciphertext is tens of
/// kilobytes: made a `String` first, it was checked twice more than it is now).
struct EnvelopeFields {
    var aggctlEncrypted: Int
    var alg: String
    var keyID: String
    var nonce: Data
    var ciphertext: Data

    init?(_ bytes: UnsafeRawBufferPointer) {
        var cursor = JSONCursor(bytes)
        /// A string's bytes (between its quotes), in place when it has no escape; nil for a string with
        /// another escape than `\/`, which base64 and ids never hold.
        func string() -> Data? {
            guard cursor.next(0x22), let base = bytes.baseAddress, let range = cursor.skipString() else { return nil }
            guard memchr(base + range.lowerBound, 0x5C, range.count) != nil else {
                // Not copied: read only while `bytes` stands (base64 decoding copies what it keeps).
                let text = UnsafeMutableRawPointer(mutating: base + range.lowerBound)
                return Data(bytesNoCopy: text, count: range.count, deallocator: .none)
            }
            // Escaped: only `\/` (a slash as some writers escape it).
            var text: [UInt8] = []
            var position = range.lowerBound
            while position < range.upperBound {
                let byte = bytes[position]
                if byte == 0x5C {
                    guard position + 1 < range.upperBound, bytes[position + 1] == 0x2F else { return nil }
                    position += 1
                }
                text.append(bytes[position])
                position += 1
            }
            return Data(text)
        }
        func integer() -> Int? {
            cursor.skipSpace()
            var value = 0
            let start = cursor.index
            while !cursor.atEnd, (0x30...0x39).contains(bytes[cursor.index]), cursor.index - start < 9 {
                value = value * 10 + Int(bytes[cursor.index] - 0x30)
                cursor.index += 1
            }
            // JSON writes no leading zero (`01`), and the version is a whole number (`1.0` is no envelope).
            guard cursor.index > start, bytes[start] != 0x30 || cursor.index - start == 1 else { return nil }
            return value
        }
        var members: [String: Data] = [:]
        var version: Int?
        guard cursor.next(0x7B) else { return nil }
        if !cursor.next(0x7D) {
            while true {
                guard let key = string().flatMap(Self.text), cursor.next(0x3A) else { return nil }
                if key == "aggctlEncrypted" {
                    guard version == nil, let value = integer() else { return nil }
                    version = value
                } else {
                    guard members[key] == nil, let value = string() else { return nil }
                    // Base64 decoding checks the long two; any other member is text as JSON has it.
                    guard key == "nonce" || key == "ciphertext" || Self.text(value) != nil else { return nil }
                    members[key] = value
                }
                if cursor.next(0x2C) { continue }
                guard cursor.next(0x7D) else { return nil }
                break
            }
        }
        cursor.skipSpace()
        guard cursor.atEnd, let version,
            let alg = members["alg"].flatMap(Self.text), let keyID = members["keyID"].flatMap(Self.text),
            let nonce = members["nonce"].flatMap({ Data(base64Encoded: $0) }),
            let ciphertext = members["ciphertext"].flatMap({ Data(base64Encoded: $0) })
        else { return nil }
        (aggctlEncrypted, self.alg, self.keyID, self.nonce, self.ciphertext) = (version, alg, keyID, nonce, ciphertext)
    }

    /// A short member as text: UTF-8 without the control characters JSON keeps out of strings.
    private static func text(_ bytes: Data) -> String? {
        bytes.withUnsafeBytes { bytes in
            guard !bytes.contains(where: { $0 < 0x20 }) else { return nil }
            return String(validating: bytes, as: UTF8.self)
        }
    }
}
