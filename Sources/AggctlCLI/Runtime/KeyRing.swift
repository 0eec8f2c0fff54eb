import Portable
import Privacy
import Stores

/// The keys a run was given (`--key-file`, repeatable; `key-file` in the config file when no flag gives
/// one), sealing records with the first and opening them with any: the store's `RecordSealing`.
struct KeyRing: RecordSealing {
    let keys: [RecordKey]
    /// Plaintext records are problems, not read (`--require-encrypted`).
    let requireSealed: Bool

    var fingerprint: String {
        keys.isEmpty ? "none" : keys.map(\.id).joined(separator: ",") + (requireSealed ? " required" : "")
    }

    /// The ring `flags` and the config file ask for; nil when they ask for none.
    static func from(_ flags: ParsedFlags, context: RunContext, command: String) throws -> KeyRing? {
        var paths = flags.all(CommonFlags.keyFile)
        if paths.isEmpty { paths = context.configuration.settings("key-file").map(\.value) }
        let requireSealed = flags.isSet(CommonFlags.requireEncrypted)
        guard !paths.isEmpty || requireSealed else { return nil }
        var keys: [RecordKey] = []
        for path in paths {
            guard !path.isEmpty else { throw UsageError("--key-file: '' is not a file path", command: command) }
            let expanded = context.expandingTilde(path)
            let key: RecordKey
            do {
                key = try RecordKey.read(from: expanded)
            } catch {
                throw CommandFailure(error.description)
            }
            if !keys.contains(key) { keys.append(key) }
        }
        return KeyRing(keys: keys, requireSealed: requireSealed)
    }

    func seal(_ record: Data, fileName: String) throws -> Data {
        guard let key = keys.first else {
            throw CommandFailure("--require-encrypted without --key-file: no key to seal the record with")
        }
        return try Envelope.seal(record, fileName: fileName, key: key)
    }

    func open(
        _ bytes: UnsafeRawBufferPointer, fileName: String, into room: (Int) -> UnsafeMutableRawBufferPointer
    ) -> SealedRecord {
        guard Envelope.isEnvelope(bytes) else {
            if requireSealed { return .refused("not encrypted (--require-encrypted)") }
            return .plain(note: keys.isEmpty ? nil : "not encrypted, in a store read with keys")
        }
        do {
            return .opened(count: try Envelope.open(bytes, fileName: fileName, keys: keys, into: room))
        } catch {
            return .refused(error.description)
        }
    }
}
