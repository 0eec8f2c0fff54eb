import Portable
import Snapshots

/// What `publish` observed of each account's windows on this machine, kept in the state directory
/// (`history.json`, through `StateFile`) across runs, so that each record can carry its device's history.
public struct LocalHistory: Codable, Sendable, Equatable {
    /// By `LocalHistory.key(of:)`.
    public var accounts: [String: WindowHistory] = [:]

    public init() {}

    /// At most this many samples of a window are kept in the state directory.
    public static let localBudget = 2000

    /// The samples of one account's two windows, oldest first.
    public struct WindowHistory: Codable, Sendable, Equatable {
        public var session: [UsageSample] = []
        public var weekly: [UsageSample] = []
        public init() {}
    }

    /// One account of this machine: provider and normalised e-mail (no device needed: it is all one device).
    public static func key(of entry: ProviderUsage) -> String {
        let email = entry.accountEmail.map { $0.trimmingWhitespace().lowercased() } ?? ""
        return "\(entry.providerID):\(email)"
    }

    /// Records what `entry` shows (and any samples it already carries, from a `--from` input), prunes what
    /// is older than the retention, and returns the entry with the history a record carries.
    public mutating func observe(_ entry: ProviderUsage, now: Date) -> ProviderUsage {
        let key = Self.key(of: entry)
        var history = accounts[key] ?? WindowHistory()
        func add(_ window: UsageWindow?, given: [UsageSample]?, to samples: inout [UsageSample]) {
            // Given samples first: they are older than the figures of the entry itself.
            for sample in given ?? [] { SamplingRule.record(sample, into: &samples) }
            if let window {
                SamplingRule.record(
                    UsageSample(at: entry.lastUpdated, usedPercent: window.usedPercent, resetsAt: window.resetsAt),
                    into: &samples)
            }
            samples = SamplingRule.pruned(samples, now: now)
            // Bounded on disk too, thinned the way a record is, with room to spare.
            if samples.count > Self.localBudget {
                samples = SamplingRule.forRecord(samples, now: now, budget: Self.localBudget)
            }
        }
        add(entry.session, given: entry.sessionSamples, to: &history.session)
        add(entry.weekly, given: entry.weeklySamples, to: &history.weekly)
        var written = entry
        written.sessionSamples = history.session.isEmpty ? nil : SamplingRule.forRecord(history.session, now: now)
        written.weeklySamples = history.weekly.isEmpty ? nil : SamplingRule.forRecord(history.weekly, now: now)
        if history.session.isEmpty && history.weekly.isEmpty {
            accounts[key] = nil
        } else {
            accounts[key] = history
        }
        return written
    }

    /// Forgets accounts with no sample in the retention before `now`.
    public mutating func prune(now: Date) {
        for key in Array(accounts.keys) {
            var history = accounts[key]!
            history.session = SamplingRule.pruned(history.session, now: now)
            history.weekly = SamplingRule.pruned(history.weekly, now: now)
            accounts[key] = history.session.isEmpty && history.weekly.isEmpty ? nil : history
        }
    }
}
