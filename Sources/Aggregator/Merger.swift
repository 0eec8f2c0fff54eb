import Foundation
import Snapshots

/// The merge of SPEC section 4: every device's entries, grouped by account, one winner per account.
///
/// Pure: the same records and options give the same result whatever order the records come in.
public enum Merger {
    /// Merges the records of a store.
    ///
    /// Per account key the winning entry is the one not marked clock-skewed, then with the newest
    /// `lastUpdated`, then the newest record `generatedAt`, then the smallest deviceID. Its windows stand
    /// for the account; tokens and cost are added up over every device that reported the key.
    public static func merge(_ contents: StoreContents, options: MergeOptions) -> MergeResult {
        var groups: [AccountKey: [Candidate]] = [:]
        for record in contents.records {
            let snapshot = record.snapshot
            for (index, entry) in snapshot.providers.enumerated() {
                let candidate = Candidate(
                    entry: entry, snapshot: snapshot, index: index,
                    clockSkew: entry.lastUpdated.timeIntervalSince(options.now) > options.maxSkew)
                groups[AccountKey(entry, on: snapshot.deviceID), default: []].append(candidate)
            }
        }

        var accounts = groups.map { key, candidates in account(key, candidates, options) }
        accounts.sort { $0.key < $1.key }

        let devices = contents.records.map { record in
            let snapshot = record.snapshot
            return DeviceSummary(
                deviceID: snapshot.deviceID, deviceName: snapshot.deviceName, generatedAt: snapshot.generatedAt,
                appVersion: snapshot.appVersion, providerCount: snapshot.providers.count,
                stale: options.now.timeIntervalSince(snapshot.generatedAt) > options.staleAfter)
        }.sorted { $0.deviceID < $1.deviceID }

        return MergeResult(now: options.now, accounts: accounts, devices: devices, problems: contents.problems)
    }

    private struct Candidate {
        var entry: ProviderUsage
        var snapshot: DeviceSnapshot
        /// Position in its record: the last tie-break, for a record that lists one account twice.
        var index: Int
        var clockSkew: Bool

        var deviceID: DeviceID { snapshot.deviceID }

        /// Whether this entry's figures are preferred to `other`'s for the same account.
        func ranksAbove(_ other: Candidate) -> Bool {
            if clockSkew != other.clockSkew { return !clockSkew }
            if entry.lastUpdated != other.entry.lastUpdated { return entry.lastUpdated > other.entry.lastUpdated }
            if snapshot.generatedAt != other.snapshot.generatedAt {
                return snapshot.generatedAt > other.snapshot.generatedAt
            }
            if deviceID != other.deviceID { return deviceID < other.deviceID }
            return index < other.index
        }
    }

    private static func best(_ candidates: [Candidate]) -> Candidate {
        candidates.dropFirst().reduce(candidates[0]) { $1.ranksAbove($0) ? $1 : $0 }
    }

    private static func account(_ key: AccountKey, _ candidates: [Candidate], _ options: MergeOptions) -> MergedAccount
    {
        let winner = best(candidates)
        let entry = winner.entry

        // A device that lists the account twice contributes its own best entry once: its ledger is one ledger.
        let perDevice = Dictionary(grouping: candidates, by: \.deviceID)
            .map { _, own in best(own) }
            .sorted { $0.deviceID < $1.deviceID }

        return MergedAccount(
            key: key,
            providerID: entry.providerID,
            accountEmail: key.normalizedEmail == nil
                ? nil : entry.accountEmail?.trimmingCharacters(in: .whitespacesAndNewlines),
            plan: entry.plan,
            session: entry.session.map(WindowStatus.init),
            weekly: entry.weekly.map(WindowStatus.init),
            modelWeekly: entry.modelWeekly.map {
                $0.map { NamedWindowStatus(name: $0.name, window: WindowStatus($0.window)) }
            },
            deviceID: winner.deviceID,
            deviceName: winner.snapshot.deviceName,
            lastUpdated: entry.lastUpdated,
            seenOn: perDevice.map(\.deviceID),
            tokens: tokenTotals(perDevice.compactMap(\.entry.tokens)),
            costUSD: costTotals(perDevice.compactMap(\.entry.costUSD)),
            perDevice: perDevice.map { candidate in
                DeviceLedger(
                    deviceID: candidate.deviceID,
                    tokensToday: candidate.entry.tokens?.today,
                    tokens30Days: candidate.entry.tokens?.last30Days,
                    costTodayUSD: candidate.entry.costUSD?.today,
                    cost30DaysUSD: candidate.entry.costUSD?.last30Days)
            },
            stale: options.now.timeIntervalSince(entry.lastUpdated) > options.staleAfter,
            clockSkew: winner.clockSkew,
            error: entry.error)
    }

    private static func tokenTotals(_ ledgers: [TokenUsage]) -> TokenTotals? {
        guard !ledgers.isEmpty else { return nil }
        var daily: [String: (tokens: Int, cost: Double?)] = [:]
        for day in ledgers.flatMap({ $0.daily ?? [] }) {
            let sum = daily[day.date] ?? (0, nil)
            daily[day.date] = (
                saturatingSum(sum.tokens, day.tokens),
                day.costUSD.map { (sum.cost ?? 0) + $0 } ?? sum.cost
            )
        }
        return TokenTotals(
            today: sum(ledgers.map(\.today)),
            last30Days: sum(ledgers.map(\.last30Days)),
            daily: daily.keys.sorted().map {
                DailyTokens(date: $0, tokens: daily[$0]!.tokens, costUSD: daily[$0]!.cost)
            })
    }

    private static func costTotals(_ ledgers: [CostUsage]) -> CostTotals? {
        guard !ledgers.isEmpty else { return nil }
        let today = ledgers.compactMap(\.today)
        let month = ledgers.compactMap(\.last30Days)
        return CostTotals(
            today: today.isEmpty ? nil : today.reduce(0, +),
            last30Days: month.isEmpty ? nil : month.reduce(0, +))
    }

    /// Sum of the values present; nil when none is.
    private static func sum(_ values: [Int?]) -> Int? {
        let present = values.compactMap { $0 }
        return present.isEmpty ? nil : present.reduce(0, saturatingSum)
    }

    /// Addition that stops at the largest Int instead of trapping: a hostile record must not crash a merge.
    private static func saturatingSum(_ a: Int, _ b: Int) -> Int {
        let (result, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? Int.max : Int.min) : result
    }
}

/// What a merge produces: the accounts, the devices, and the files that could not be used.
public struct MergeResult: Sendable, Equatable {
    public var now: Date
    /// Sorted by provider, then e-mail (none last), then device.
    public var accounts: [MergedAccount]
    /// Sorted by deviceID.
    public var devices: [DeviceSummary]
    public var problems: [RecordProblem]
}
