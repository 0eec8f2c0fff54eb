import Foundation
import Snapshots

/// The merged weekly history a reader has seen, kept longer than records carry it (records hold 14
/// days; a forecast wants earlier weeks): `report` adds each store's merged weekly samples here and
/// draws forecasts from the union. Kept in the state directory through `StateFile`; 8 weeks, as the
/// desktop app keeps; per store and account. Losing it only costs forecasts until weeks accumulate again.
public struct HistoryArchive: Codable, Sendable, Equatable {
    /// Store display name, then `AccountKey.description`, then the weekly samples, oldest first.
    public var stores: [String: [String: [UsageSample]]] = [:]

    public init() {}

    public static let retention: TimeInterval = 56 * 86_400

    /// Adds the accounts' merged weekly history and returns, per account key, everything known of it.
    public mutating func absorb(store: String, accounts: [MergedAccount], now: Date, maxSkew: TimeInterval) -> [String:
        [UsageSample]]
    {
        var known = stores[store] ?? [:]
        let oldest = now.addingTimeInterval(-Self.retention)
        for account in accounts {
            guard let weekly = account.history?.weekly, !weekly.isEmpty else { continue }
            let key = account.key.description
            let union = MergedHistory.union([known[key] ?? [], weekly], now: now, maxSkew: maxSkew)
            known[key] = union.filter { $0.at >= oldest }
        }
        for key in Array(known.keys) {
            known[key] = known[key]!.filter { $0.at >= oldest }
            if known[key]!.isEmpty { known[key] = nil }
        }
        stores[store] = known.isEmpty ? nil : known
        return known
    }
}
