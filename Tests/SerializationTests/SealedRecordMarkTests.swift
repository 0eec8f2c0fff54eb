import Testing

@testable import Serialization

/// Telling a sealed record's envelope from a record, whatever order a writer put the envelope's members in.
struct SealedRecordMarkTests {
    func appears(_ text: String) -> Bool {
        Array(text.utf8).withUnsafeBytes(SealedRecordMark.appears)
    }

    @Test("an envelope in any member order is one; a record, even one naming the mark inside, is not")
    func envelopesAndRecords() {
        let long = String(repeating: "QUJD", count: 200)
        #expect(appears(#"{"aggctlEncrypted":1,"alg":"chacha20poly1305","ciphertext":"\#(long)"}"#))
        #expect(appears(#"{ "ciphertext" : "\#(long)\/x", "nonce": "AAAA", "aggctlEncrypted" : 1 }"#))
        #expect(appears(#"{"version": 1.5e3, "a\"b": "c\\", "aggctlEncrypted": 1}"#))
        #expect(!appears(#"{"deviceID":"laptop","providers":[{"aggctlEncrypted":1}],"aggctlEncrypted":1}"#))
        #expect(!appears(#"{"deviceID":"aggctlEncrypted","generatedAt":"2026-11-30T12:00:00Z"}"#))
        #expect(!appears(#"{"ciphertext":"\#(long)"#), "cut short in its ciphertext")
        #expect(!appears(#"{"a\":"aggctlEncrypted":1}"#), "the mark inside a key with an escaped quote")
        #expect(!appears(""))
        #expect(!appears("[]"))
    }
}
