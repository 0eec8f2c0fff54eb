import CSodium
import Portable

#if canImport(CryptoKit)
    import CryptoKit
#endif

/// ChaCha20-Poly1305 (RFC 8439, the IETF construction with a 12-byte nonce), SHA-256 and random bytes, from
/// libsodium (opened on first use) or, on macOS, CryptoKit. aggctl only frames what the library seals
/// and opens (`Envelope`): no cryptography is made here.
public enum RecordCipher {
    public static let keyLength = 32
    public static let nonceLength = 12
    public static let tagLength = 16

    /// Why records cannot be sealed or opened on this machine: one line saying what to install.
    public struct Unavailable: Error, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// Makes sure the cipher can be used; throws the reason when it cannot.
    public static func ready() throws(Unavailable) {
        #if canImport(CryptoKit)
            return
        #else
            if let error = aggctl_sodium_load_error() { throw Unavailable(message: String(cString: error)) }
        #endif
    }

    /// `plaintext` sealed under `key` and `nonce`, authenticating `associated` too: the ciphertext and its
    /// 16-byte tag.
    public static func seal(_ plaintext: [UInt8], nonce: [UInt8], associated: [UInt8], key: [UInt8]) throws -> [UInt8] {
        precondition(key.count == keyLength && nonce.count == nonceLength, "a key of 32 bytes and a nonce of 12")
        try ready()
        #if canImport(CryptoKit)
            let box = try ChaChaPoly.seal(
                plaintext, using: SymmetricKey(data: key), nonce: try ChaChaPoly.Nonce(data: nonce),
                authenticating: associated)
            return Array(box.ciphertext) + Array(box.tag)
        #else
            var sealed = [UInt8](repeating: 0, count: plaintext.count + tagLength)
            var length: UInt64 = 0
            let code = sealed.withUnsafeMutableBufferPointer { out in
                aggctl_sodium_seal(
                    out.baseAddress, &length, plaintext, UInt64(plaintext.count), associated, UInt64(associated.count),
                    nonce, key)
            }
            guard code == 0 else { throw Unavailable(message: "libsodium could not seal a record") }
            return Array(sealed.prefix(Int(length)))
        #endif
    }

    /// The plaintext of `sealed` (ciphertext and tag); nil when it does not authenticate: tampered with,
    /// sealed under another key, or with other associated data.
    public static func open(_ sealed: [UInt8], nonce: [UInt8], associated: [UInt8], key: [UInt8]) throws -> [UInt8]? {
        try sealed.withUnsafeBytes { try open($0, nonce: nonce, associated: associated, key: key) }
    }

    /// `open` of bytes where they lie; the plaintext in an array not filled first.
    public static func open(
        _ sealed: UnsafeRawBufferPointer, nonce: [UInt8], associated: [UInt8], key: [UInt8]
    ) throws -> [UInt8]? {
        guard sealed.count >= tagLength else { return nil }
        var opened = false
        let plaintext = try [UInt8](unsafeUninitializedCapacity: sealed.count - tagLength) { out, initialized in
            opened = try open(
                sealed, nonce: nonce, associated: associated, key: key, into: UnsafeMutableRawBufferPointer(out))
            // Nothing is trusted from a failed open: none of it counts as written.
            initialized = opened ? out.count : 0
        }
        return opened ? plaintext : nil
    }

    /// `open` into `output` (at least the ciphertext's length without the tag); whether it authenticated.
    /// What `output` holds after a failed open means nothing.
    public static func open(
        _ sealed: UnsafeRawBufferPointer, nonce: [UInt8], associated: [UInt8], key: [UInt8],
        into output: UnsafeMutableRawBufferPointer
    ) throws -> Bool {
        precondition(key.count == keyLength && nonce.count == nonceLength, "a key of 32 bytes and a nonce of 12")
        try ready()
        guard sealed.count >= tagLength else { return false }
        precondition(output.count >= sealed.count - tagLength, "room for the plaintext")
        #if canImport(CryptoKit)
            let sealed = Array(sealed)
            guard
                let box = try? ChaChaPoly.SealedBox(
                    nonce: try ChaChaPoly.Nonce(data: nonce), ciphertext: sealed.dropLast(tagLength),
                    tag: sealed.suffix(tagLength)),
                let plaintext = try? ChaChaPoly.open(box, using: SymmetricKey(data: key), authenticating: associated)
            else { return false }
            plaintext.withUnsafeBytes { output.copyMemory(from: $0) }
            return true
        #else
            var length: UInt64 = 0
            let code = aggctl_sodium_open(
                output.baseAddress?.assumingMemoryBound(to: UInt8.self), &length,
                sealed.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(sealed.count), associated,
                UInt64(associated.count), nonce, key)
            return code == 0 && Int(length) == sealed.count - tagLength
        #endif
    }

    /// `count` bytes from the system's cryptographic random source.
    public static func randomBytes(_ count: Int) throws -> [UInt8] {
        try ready()
        var bytes = [UInt8](repeating: 0, count: count)
        #if canImport(CryptoKit)
            var generator = SystemRandomNumberGenerator()
            for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &generator) }
        #else
            bytes.withUnsafeMutableBytes { aggctl_sodium_random($0.baseAddress, $0.count) }
        #endif
        return bytes
    }

    public static func sha256(_ bytes: [UInt8]) throws -> [UInt8] {
        try ready()
        #if canImport(CryptoKit)
            return Array(SHA256.hash(data: bytes))
        #else
            var digest = [UInt8](repeating: 0, count: 32)
            _ = digest.withUnsafeMutableBufferPointer {
                aggctl_sodium_sha256($0.baseAddress, bytes, UInt64(bytes.count))
            }
            return digest
        #endif
    }
}
