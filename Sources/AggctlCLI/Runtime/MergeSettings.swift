import Aggregator
import Portable
import Snapshots
import Stores

/// What every command that reads the store settles before it reads anything: the store and the merge's
/// tolerances, from the flags, `AGGCTL_STORE` and the config file, in one throwing step. A bad value is an
/// error naming where it came from (`--stale-after`, `AGGCTL_STORE`, `config line 3 (stale-after)`).
struct MergeSettings: Equatable, Sendable {
    var location: StoreLocation
    /// `--now`; nil to use the clock at the moment of each merge (each round of `watch`).
    var now: Date?
    var staleAfter: TimeInterval
    var maxSkew: TimeInterval

    init(location: StoreLocation, now: Date? = nil, staleAfter: TimeInterval, maxSkew: TimeInterval) {
        self.location = location
        self.now = now
        self.staleAfter = staleAfter
        self.maxSkew = maxSkew
    }

    init(_ flags: ParsedFlags, context: RunContext, command: String) throws {
        location = try context.storeLocation(flags, command: command)
        now = try flags.setting(CommonFlags.now).map(ValueParsers.date)
        staleAfter = try context.seconds(CommonFlags.staleAfter, flags: flags, default: MergeOptions.defaultStaleAfter)
        maxSkew = try context.seconds(CommonFlags.maxSkew, flags: flags, default: MergeOptions.defaultMaxSkew)
    }

    /// The merge's options at this moment.
    func options(clock: () -> Date) -> MergeOptions {
        MergeOptions(now: now ?? clock(), staleAfter: staleAfter, maxSkew: maxSkew)
    }
}
