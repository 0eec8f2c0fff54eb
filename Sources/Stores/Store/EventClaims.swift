import Portable

/// Markers one machine makes in a store and every other machine sees: `alerts/<name>` beside the records,
/// created only when absent. `check` claims each event there before a shared channel (a phone, a chat)
/// hears of it, so that three machines running `check` tell a person once (docs/alerts.md, "Once per person").
public protocol EventClaims: Sendable {
    /// Whether two machines creating the same claim at once are told apart: true for a folder on one disk
    /// or NFS (`O_EXCL`), false for a folder a sync tool copies between machines (each has its own copy).
    var isExclusive: Bool { get }

    /// Creates the claim `name` holding `data` unless it exists: true when this call created it.
    func create(_ name: ClaimName, data: Data) throws -> Bool

    /// The claim's bytes and when it was written, or nil when there is none.
    func read(_ name: ClaimName) throws -> (data: Data, modified: Date)?

    /// Writes `name` whether or not it exists (atomically: a reader sees the old bytes or the new).
    func replace(_ name: ClaimName, data: Data) throws

    /// The names of the claims there are.
    func names() throws -> [ClaimName]

    /// The claims written before `date`, removed (claims are kept 30 days). Never throws: cleanup.
    func removeClaims(olderThan date: Date)
}

/// A claim's file name: `[A-Za-z0-9._-]`, not starting with a dot, at most 128 bytes (an event id and a
/// suffix): it never names anything outside the claims folder.
public struct ClaimName: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String

    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard (1...128).contains(bytes.count), bytes[0] != 0x2E,
            bytes.allSatisfy({ byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == 0x2E || byte == 0x5F || byte == 0x2D
            })
        else { return nil }
        rawValue = text
    }

    public var description: String { rawValue }
}

extension RecordStore {
    /// None by default: then every machine delivers to shared channels.
    public var claims: (any EventClaims)? { nil }
}
