import Portable

/// What a merge's result follows from, besides the moment it is judged at: the store (by its cache
/// name), the aggctl that read it, its records exactly (the listing's fingerprint) and the merge's
/// tolerances. Two merges with the same identity give the same result, judged again at their moments;
/// the caches that reuse a merge are keyed by it.
public struct MergeIdentity: Sendable, Equatable {
    public var store: String
    public var readerVersion: String
    public var fingerprint: UInt64
    public var staleAfter: TimeInterval
    public var maxSkew: TimeInterval

    public init(
        store: String, readerVersion: String, fingerprint: UInt64, staleAfter: TimeInterval, maxSkew: TimeInterval
    ) {
        self.store = store
        self.readerVersion = readerVersion
        self.fingerprint = fingerprint
        self.staleAfter = staleAfter
        self.maxSkew = maxSkew
    }
}
