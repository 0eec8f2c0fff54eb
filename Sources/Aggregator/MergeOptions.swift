import Portable

/// The knobs of a merge: the moment it is evaluated at and the two tolerances of the merge rules.
public struct MergeOptions: Sendable, Equatable {
    /// The moment staleness and clock skew are judged against (`--now`, or the real time).
    public var now: Date
    /// An entry read longer ago than this is stale (`--stale-after`, default 3600 s).
    public var staleAfter: TimeInterval
    /// An entry dated further than this in the future has a wrong clock (`--max-skew`, default 300 s).
    public var maxSkew: TimeInterval

    public static let defaultStaleAfter: TimeInterval = 3600
    public static let defaultMaxSkew: TimeInterval = 300

    public init(now: Date, staleAfter: TimeInterval = defaultStaleAfter, maxSkew: TimeInterval = defaultMaxSkew) {
        self.now = now
        self.staleAfter = staleAfter
        self.maxSkew = maxSkew
    }

    /// Whether something last updated at `moment` is stale at `now` (the merge rules).
    public func isStale(since moment: Date) -> Bool {
        now.timeIntervalSince(moment) > staleAfter
    }
}
