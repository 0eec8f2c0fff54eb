import Portable

/// A sealed record as the store holds it (the record format, "Encrypted records"):
/// `{"aggctlEncrypted": 1, "alg": "chacha20poly1305", "keyID", "nonce", "ciphertext"}`, the record's JSON
/// sealed with ChaCha20-Poly1305 under the store's key and a random nonce, the record's file name as the
/// associated data (a record moved to another machine's name does not open).
public enum Envelope {
    public static let algorithm = "chacha20poly1305"

    /// Whether `bytes` hold an envelope rather than a record: an object whose first member is
    /// `aggctlEncrypted` (as every writer of envelopes puts it, keys sorted), or one naming it within its
    /// first bytes.
    public static func isEnvelope(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let marker = Array(#""aggctlEncrypted""#.utf8)
        let head = UnsafeRawBufferPointer(rebasing: bytes.prefix(256))
        guard head.count >= marker.count else { return false }
        return (0...(head.count - marker.count)).contains { start in
            head[start] == marker[0] && marker.indices.allSatisfy { head[start + $0] == marker[$0] }
        }
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
        guard data.withUnsafeBytes(isEnvelope), let fields = try? JSONDecoder().decode(Fields.self, from: data) else {
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
        guard let fields = try? JSONDecoder().decode(Fields.self, from: data) else {
            throw .malformed("not a readable envelope")
        }
        guard fields.aggctlEncrypted == 1 else {
            throw .malformed("envelope version \(fields.aggctlEncrypted) is not one this reader knows")
        }
        guard fields.alg == algorithm else {
            throw .malformed("the cipher '\(Self.printable(fields.alg))' is not one this reader knows")
        }
        guard let nonce = Data(base64Encoded: fields.nonce), nonce.count == RecordCipher.nonceLength,
            let sealed = Data(base64Encoded: fields.ciphertext)
        else { throw .malformed("its nonce or ciphertext is not base64 of the right length") }
        guard let key = keys.first(where: { $0.id == fields.keyID }) else {
            throw .noKey(Self.printable(fields.keyID))
        }
        let opened: [UInt8]?
        do {
            opened = try RecordCipher.open(
                Array(sealed), nonce: Array(nonce), associated: Array(fileName.utf8), key: key.bytes)
        } catch {
            throw .unavailable("\(error)")
        }
        guard let opened else { throw .authenticationFailed(key.id) }
        return Data(opened)
    }

    /// An id from a hostile file, shown in a problem: hex digits only, at most 16.
    private static func printable(_ text: String) -> String {
        String(
            text.unicodeScalars.filter { ("0"..."9").contains($0) || ("a"..."z").contains($0) }.prefix(16).map(
                Character.init))
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
