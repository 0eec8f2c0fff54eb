import Foundation
import TestSupport
import Testing

@testable import Privacy

/// The envelope around a record, through the same binding the shipped binary uses.
struct EnvelopeTests {
    static func bytes(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }

    @Test("the cipher gives RFC 8439's AEAD test vector (section 2.8.2), and opens it")
    func knownAnswer() throws {
        let key = Array(UInt8(0x80)...UInt8(0x9f))
        let nonce = Self.bytes("070000004041424344454647")
        let associated = Self.bytes("50515253c0c1c2c3c4c5c6c7")
        let plaintext = Array(
            "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it."
                .utf8)
        let expected = Self.bytes(
            "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b"
                + "1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7"
                + "bc3ff4def08e4b7a9de576d26586cec64b6116" + "1ae10b594f09e26a7e902ecbd0600691")
        let sealed = try RecordCipher.seal(plaintext, nonce: nonce, associated: associated, key: key)
        #expect(sealed == expected)
        #expect(try RecordCipher.open(sealed, nonce: nonce, associated: associated, key: key) == plaintext)
        var flipped = sealed
        flipped[3] ^= 1
        #expect(try RecordCipher.open(flipped, nonce: nonce, associated: associated, key: key) == nil)
    }

    @Test("a record sealed for one file name opens under it with its key, and under nothing else")
    func roundTripAndRefusals() throws {
        let key = try RecordKey.generate()
        let other = try RecordKey.generate()
        #expect(key.id.count == 16 && key.id != other.id)
        let record = Data(#"{"deviceID":"laptop","providers":[]}"#.utf8)
        let sealed = try Envelope.seal(record, fileName: "laptop.json", key: key)
        #expect(sealed.withUnsafeBytes(Envelope.isEnvelope))
        #expect(!record.withUnsafeBytes(Envelope.isEnvelope))
        #expect(!String(decoding: sealed, as: UTF8.self).contains("laptop\""), "the record's text is not in it")
        #expect(try Envelope.open(sealed, fileName: "laptop.json", keys: [other, key]) == record)
        // Two seals of one record differ: a new nonce each time.
        #expect(try Envelope.seal(record, fileName: "laptop.json", key: key) != sealed)
        #expect(throws: EnvelopeError.authenticationFailed(key.id)) {
            try Envelope.open(sealed, fileName: "desktop.json", keys: [key])
        }
        #expect(throws: EnvelopeError.noKey(key.id)) {
            try Envelope.open(sealed, fileName: "laptop.json", keys: [other])
        }
        var tampered = try JSONSerialization.jsonObject(with: sealed) as? [String: Any] ?? [:]
        var cipher = Array(Data(base64Encoded: tampered["ciphertext"] as? String ?? "") ?? Data())
        cipher[0] ^= 0x40
        tampered["ciphertext"] = Data(cipher).base64EncodedString()
        let changed = try JSONSerialization.data(withJSONObject: tampered)
        #expect(throws: EnvelopeError.authenticationFailed(key.id)) {
            try Envelope.open(changed, fileName: "laptop.json", keys: [key])
        }
        #expect(throws: EnvelopeError.self) {
            try Envelope.open(sealed.prefix(40), fileName: "laptop.json", keys: [key])
        }
    }

    @Test("the envelope's reader takes the JSON writers write, and nothing JSON does not allow")
    func envelopeShapes() throws {
        let key = try RecordKey.generate()
        let record = Data(#"{"deviceID":"laptop"}"#.utf8)
        let sealed = String(decoding: try Envelope.seal(record, fileName: "laptop.json", key: key), as: UTF8.self)
        func opens(_ text: String) -> Bool {
            (try? Envelope.open(Data(text.utf8), fileName: "laptop.json", keys: [key])) == record
        }
        #expect(opens(sealed))
        // Spaces and new lines between members, and slashes escaped as some writers escape them.
        let spaced = sealed.replacingOccurrences(of: ",", with: ",\n  ").replacingOccurrences(of: ":", with: " : ")
        #expect(opens(spaced))
        #expect(opens(sealed.replacingOccurrences(of: "/", with: "\\/")) || !sealed.contains("/"))
        #expect(opens(sealed.replacingOccurrences(of: "{", with: #"{"note": "x", "#)), "an unknown member is left")
        // What no JSON reader takes (each read as no envelope at all, not only one that fails to open): a
        // leading zero, a member twice, bytes after the object, a control character in a string.
        func reads(_ text: String) -> Bool { Data(text.utf8).withUnsafeBytes(EnvelopeFields.init) != nil }
        #expect(reads(sealed) && reads(spaced))
        #expect(!reads(sealed.replacingOccurrences(of: #""aggctlEncrypted":1"#, with: #""aggctlEncrypted":01"#)))
        #expect(!reads(sealed.replacingOccurrences(of: "{", with: #"{"alg":"chacha20poly1305","#)))
        #expect(!reads(sealed + "{}"))
        #expect(!reads(sealed.replacingOccurrences(of: #""keyID":""#, with: "\"keyID\":\"\u{01}")))
        #expect(reads(sealed.replacingOccurrences(of: #""keyID":""#, with: "\"keyID\":\"x")))
    }

    @Test("envelopes the fuzzer found read where JSON does not are no envelopes")
    func fuzzRegressions() throws {
        let paths = Repository.fuzzRegressions("envelope")
        #expect(!paths.isEmpty)
        for path in paths {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            if data.withUnsafeBytes(EnvelopeFields.init) != nil {
                #expect(throws: Never.self, "\(path)") { try JSONSerialization.jsonObject(with: data) }
            }
        }
    }

    @Test(
        "a key file is written 0600, never over another, read back; one others can read is refused, naming only the file"
    )
    func keyFiles() throws {
        let folder = TemporaryDirectory("aggctl-keys")
        let path = folder.file("store.key")
        let key = try RecordKey.generate()
        try key.write(to: path)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try RecordKey.read(from: path) == key)
        #expect(throws: KeyFileError.self) { try RecordKey.generate().write(to: path) }
        #expect(try RecordKey.read(from: path) == key, "the first key stands")
        chmod(path, 0o644)
        do {
            _ = try RecordKey.read(from: path)
            Issue.record("a key file others can read was used")
        } catch {
            #expect(error.description.contains("chmod 600"))
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(!error.description.contains(text.dropFirst(RecordKey.filePrefix.count).prefix(8)))
        }
        #expect("\(key)" == "key \(key.id)", "a key shows its id, never its bytes")
    }
}
