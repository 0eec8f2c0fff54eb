import Portable
import Serialization
import Snapshots

/// What makes two provider entries the same account: provider plus normalised e-mail.
///
/// An entry without an e-mail cannot be proven to be the same account as any other, so its key carries
/// its device: it is merged only with itself.
public struct AccountKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let providerID: String
    /// Trimmed and lowercased; nil when the entry has no e-mail.
    public let normalizedEmail: String?
    /// Set only when `normalizedEmail` is nil.
    public let deviceID: DeviceID?
    /// FNV-1a of the parts' bytes, taken once: a merge hashes every entry's key into a dictionary, and
    /// SipHash over the three texts was most of each lookup. Equal keys have equal bytes, so equal digests.
    private let digest: UInt64

    public init(providerID: String, accountEmail: String?, deviceID: DeviceID) {
        let email = accountEmail.map(AccountKey.normalize) ?? ""
        if email.isEmpty {
            self.init(providerID: providerID, normalizedEmail: nil, deviceID: deviceID)
        } else {
            self.init(providerID: providerID, normalizedEmail: email, deviceID: nil)
        }
    }

    /// Without surrounding white space; the text itself when it has none (no Foundation call, no new string).
    static func trimmed(_ text: String) -> String {
        let utf8 = text.utf8
        if utf8.first.map({ $0 > 0x20 }) ?? true, utf8.last.map({ $0 > 0x20 }) ?? true { return text }
        return text.trimmingWhitespace()
    }

    /// Trimmed and lowercased; the text itself when it already is (the common case costs no new string).
    static func normalize(_ email: String) -> String {
        let utf8 = email.utf8
        // Over the contiguous bytes where the text has them (every decoded one): the merge normalizes
        // every entry's e-mail on one core, and iterating the view cost ten times as much.
        let isNormal =
            utf8.withContiguousStorageIfAvailable(isNormalized) ?? Array(utf8).withUnsafeBufferPointer(isNormalized)
        if isNormal { return email }
        return email.trimmingWhitespace().lowercased()
    }

    /// No capital or non-ASCII letter, and no white space (or control character) at either end.
    private static func isNormalized(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first, let last = bytes.last else { return true }
        return first > 0x20 && last > 0x20
            && bytes.allSatisfy { $0 < 0x80 && !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
    }

    /// A key from its parts as `init(providerID:accountEmail:deviceID:)` made them (for stored merges).
    init(providerID: String, normalizedEmail: String?, deviceID: DeviceID?) {
        self.providerID = providerID
        self.normalizedEmail = normalizedEmail
        self.deviceID = deviceID
        // Each part ends with 0xFF, a byte never in UTF-8; a last byte says whether there was an e-mail.
        var digest = BinaryWriter.fnv1aOffset
        func mix(_ part: String) {
            digest = BinaryWriter.fnv1a(part.utf8, from: digest)
            digest = (digest ^ 0xFF) &* BinaryWriter.fnv1aPrime
        }
        mix(providerID)
        mix(normalizedEmail ?? "")
        mix(deviceID?.rawValue ?? "")
        self.digest = (digest ^ (normalizedEmail == nil ? 1 : 0)) &* BinaryWriter.fnv1aPrime
    }

    public init(_ entry: ProviderUsage, on deviceID: DeviceID) {
        self.init(providerID: entry.providerID, accountEmail: entry.accountEmail, deviceID: deviceID)
    }

    /// A stable text form, e.g. `claude:you@example.com` or `codex:@laptop-1`; used as an id in state files.
    public var description: String {
        if let email = normalizedEmail { return "\(providerID):\(email)" }
        return "\(providerID):@\(deviceID?.rawValue ?? "")"
    }

    /// The order of `status`: provider, then e-mail (keys without one last), then device.
    public static func < (lhs: AccountKey, rhs: AccountKey) -> Bool {
        lhs.compare(rhs) < 0
    }

    /// The same bytes: two e-mails are one account when they are written alike once trimmed and lowercased,
    /// as the reference merge compares them. (`String`'s `==` would also take canonically equal texts,
    /// such as a composed and a decomposed "é", as one, which the byte order of `<` does not.)
    public static func == (lhs: AccountKey, rhs: AccountKey) -> Bool {
        lhs.digest == rhs.digest && lhs.compare(rhs) == 0
    }

    /// The digest, through the seeded `Hasher` (so a table's layout still differs from run to run).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(digest)
    }

    /// Negative, zero or positive as `self` sorts before, with or after `other` in the order of `<`.
    public func compare(_ other: AccountKey) -> Int {
        let provider = ByteOrder.compare(providerID, other.providerID)
        if provider != 0 { return provider }
        switch (normalizedEmail, other.normalizedEmail) {
        case (let l?, let r?):
            let email = ByteOrder.compare(l, r)
            if email != 0 { return email }
        case (nil, _?): return 1
        case (_?, nil): return -1
        case (nil, nil): break
        }
        return ByteOrder.compare(deviceID?.rawValue ?? "", other.deviceID?.rawValue ?? "")
    }

    /// The indices of `keys` in the order of `<`, comparing numbers (a provider's rank among the few
    /// providers, the e-mail's first bytes) and the keys in full only where those are equal: sorting a
    /// thousand accounts by full comparison (strings copied and compared each time) was a twentieth of a
    /// cold merge.
    static func sortedIndices(_ keys: [AccountKey]) -> [Int] {
        // Ranked by bytes, as `compare` orders them (a Set would take canonically equal texts as one).
        let providers = keys.map(\.providerID)
        var rank = [Int](repeating: 0, count: keys.count)
        var previous: Int?
        var current = 0
        for index in ByteOrder.sortedIndices(providers) {
            if let previous, ByteOrder.compare(providers[previous], providers[index]) != 0 { current += 1 }
            rank[index] = current
            previous = index
        }
        let prefixes = keys.indices.map { index in
            (
                provider: rank[index], withoutEmail: keys[index].normalizedEmail == nil,
                email: keys[index].normalizedEmail.map(ByteOrder.prefixKeys) ?? (0, 0)
            )
        }
        return keys.indices.sorted { a, b in
            let l = prefixes[a]
            let r = prefixes[b]
            if l.provider != r.provider { return l.provider < r.provider }
            if l.withoutEmail != r.withoutEmail { return !l.withoutEmail }
            if l.email != r.email { return l.email < r.email }
            return keys[a].compare(keys[b]) < 0
        }
    }
}
