import Foundation
import Snapshots
import TestSupport
import Testing

/// What a reader is told about a sealed record's key (docs/privacy.md), and key files as people save them.
struct SealedKeysEndToEndTests {
    let sealed = SealedEndToEndTests()

    func keyID(of path: String) throws -> String {
        let published = try sealed.publish(sealed.root.file("probe"), "probe", "p@example.com", keys: [path])
        #expect(published.status == 0, "\(published.errors)")
        let envelope = try #require(FileManager.default.contents(atPath: sealed.root.file("probe/probe.json")))
        let object = try #require(try JSONSerialization.jsonObject(with: envelope) as? [String: Any])
        return try #require(object["keyID"] as? String)
    }

    @Test("read without any key, a sealed record's problem names the key it needs")
    func noKeyNamesIt() throws {
        let key = try sealed.newKey("store")
        let id = try keyID(of: key)
        #expect(try sealed.publish(sealed.root.file("store"), "laptop", "a@example.com", keys: [key]).status == 0)
        let read = try sealed.status(sealed.root.file("store"), keys: [])
        #expect(read.problems["laptop.json"] == "encrypted for key \(id); give its store's key with --key-file")
    }

    @Test("a key file saved with CRLF line ends is the same key")
    func crlfKeyFile() throws {
        let key = try sealed.newKey("store")
        let text = try String(contentsOfFile: key, encoding: .utf8)
        let crlf = sealed.root.file("crlf.key")
        try Data(text.replacingOccurrences(of: "\n", with: "\r\n").utf8).write(to: URL(fileURLWithPath: crlf))
        chmod(crlf, 0o600)
        #expect(try sealed.publish(sealed.root.file("store"), "laptop", "a@example.com", keys: [key]).status == 0)
        let read = try sealed.status(sealed.root.file("store"), keys: [crlf])
        #expect(read.run.status == 0, "\(read.run.errors)")
        #expect(read.accounts == ["a@example.com"], "\(read.problems)")
    }

    @Test("an envelope naming a key id with spaces is told with them, as the record has it")
    func keyIDShownAsIs() throws {
        let key = try sealed.newKey("store")
        #expect(try sealed.publish(sealed.root.file("store"), "laptop", "a@example.com", keys: [key]).status == 0)
        let path = sealed.root.file("store/laptop.json")
        var object = try #require(
            try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        object["keyID"] = "ab cd ef"
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
        let withKey = try sealed.status(sealed.root.file("store"), keys: [key])
        #expect(
            withKey.problems["laptop.json"]
                == "encrypted for key ab cd ef, which this machine does not have (--key-file)", "\(withKey.problems)")
        let without = try sealed.status(sealed.root.file("store"), keys: [])
        #expect(without.problems["laptop.json"] == "encrypted for key ab cd ef; give its store's key with --key-file")
    }
}
