import Snapshots
import TestSupport
import Testing

@testable import Aggregator

struct AccountKeyTests {
    @Test("accounts sorted by their first bytes and then in full come out in the order of <")
    func sortedIndicesFollowTheOrder() {
        // Texts that share long prefixes, differ only past the eighth byte, are shorter than eight bytes,
        // carry a NUL or non-ASCII bytes, or are empty.
        let providers = ["claude", "codex", "claude-code", "claude\u{0}", "c", "", "ünï", "e\u{301}", "\u{e9}"]
        let emails: [String?] = [
            nil, "user0001@example.com", "user0001@example.org", "user000", "user0000", "", "a", "user0001\u{0}x",
            "ü@example.com", "e\u{301}@example.com", "\u{e9}@example.com",
        ]
        var generator = SeededGenerator(seed: 11)
        let keys = (0..<400).map { index in
            AccountKey(
                providerID: providers.randomElement(using: &generator)!,
                accountEmail: emails.randomElement(using: &generator)!,
                deviceID: Records.id("dev-\(Int.random(in: 0...30, using: &generator))-\(index % 3)"))
        }
        let sorted = AccountKey.sortedIndices(keys).map { keys[$0] }
        let expected = keys.sorted()
        let firstDifference = sorted.indices.first { sorted[$0] != expected[$0] }
        #expect(firstDifference == nil, "\(firstDifference.map { "\(sorted[$0]) against \(expected[$0])" } ?? "")")
        #expect(Set(AccountKey.sortedIndices(keys)) == Set(keys.indices))
    }

    @Test("one account is one set of bytes: e-mails written differently are different accounts, as in the reference")
    func sameAccountIsSameBytes() {
        let composed = AccountKey(providerID: "claude", accountEmail: "\u{e9}@example.com", deviceID: Records.id("a"))
        let decomposed = AccountKey(
            providerID: "claude", accountEmail: "e\u{301}@example.com", deviceID: Records.id("b"))
        #expect(composed != decomposed)
        #expect((composed < decomposed) != (decomposed < composed))
        #expect(Set([composed, decomposed]).count == 2)
        let again = AccountKey(providerID: "claude", accountEmail: " \u{c9}@Example.com", deviceID: Records.id("c"))
        #expect(again == composed && again.hashValue == composed.hashValue)
    }
}
