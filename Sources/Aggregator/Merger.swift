import Portable
import Snapshots

/// The merge of the merge rules: every device's entries, grouped by account, one winner per account.
///
/// Pure: the same records and options give the same result whatever order the records come in.
public enum Merger {
    /// Merges the records of a store.
    ///
    /// Per account key the winning entry is the one not marked clock-skewed, then with the newest
    /// `lastUpdated`, then the newest record `generatedAt`, then the smallest deviceID, among the entries
    /// that carry a window: an entry without figures (signed out) never hides another device's figures;
    /// its error is reported beside them. Only when no entry has a window does the newest stand alone.
    /// The winner's windows stand for the account; tokens and cost are added up over every device that
    /// reported the key.
    public static func merge(_ contents: StoreContents, options: MergeOptions) -> MergeResult {
        let records = contents.records
        let devices = DeviceOrder(records)
        // One candidate per provider entry, holding indices rather than copies: copying entries and
        // records (and the reference counting that comes with it) cost more than reading them.
        var candidates: [Candidate] = []
        candidates.reserveCapacity(records.reduce(0) { $0 + $1.snapshot.providers.count })
        var groups: [AccountKey: Int] = [:]
        groups.reserveCapacity(candidates.capacity)
        // The group of each candidate, in candidate order; gathered per group below.
        var groupOfCandidate: [Int] = []
        groupOfCandidate.reserveCapacity(candidates.capacity)
        var newest: Date?
        for recordIndex in records.indices {
            let deviceID = records[recordIndex].snapshot.deviceID
            let generatedAt = records[recordIndex].snapshot.generatedAt
            for entryIndex in records[recordIndex].snapshot.providers.indices {
                let key = AccountKey(
                    providerID: records[recordIndex].snapshot.providers[entryIndex].providerID,
                    accountEmail: records[recordIndex].snapshot.providers[entryIndex].accountEmail,
                    deviceID: deviceID)
                // Read in place: a copy of the entry retains and releases each of its fields.
                let lastUpdated = records[recordIndex].snapshot.providers[entryIndex].lastUpdated
                let hasWindows = records[recordIndex].snapshot.providers[entryIndex].hasWindows
                newest = max(newest ?? lastUpdated, records[recordIndex].snapshot.providers[entryIndex].newestMoment)
                // Grouped by hashing; only the distinct keys are sorted below (sorting every entry by key
                // compared strings tens of thousands of times on a large store).
                let group: Int
                if let known = groups[key] {
                    group = known
                } else {
                    group = groups.count
                    groups[key] = group
                }
                groupOfCandidate.append(group)
                candidates.append(
                    Candidate(
                        device: devices.rank[recordIndex], record: recordIndex, entry: entryIndex,
                        lastUpdated: lastUpdated,
                        generatedAt: generatedAt,
                        clockSkew: lastUpdated.timeIntervalSince(options.now) > options.maxSkew,
                        hasWindows: hasWindows))
            }
        }
        // Each group's candidates side by side, in candidate order (a counting sort: one array, not one per
        // group): group g's are members[firsts[g]..<firsts[g + 1]].
        var firsts = [Int](repeating: 0, count: groups.count + 1)
        for group in groupOfCandidate { firsts[group + 1] += 1 }
        for group in 0..<groups.count { firsts[group + 1] += firsts[group] }
        var members = [Int](repeating: 0, count: candidates.count)
        var next = firsts
        for (candidate, group) in groupOfCandidate.enumerated() {
            members[next[group]] = candidate
            next[group] += 1
        }
        let grouped = Array(groups)
        let keys = AccountKey.sortedIndices(grouped.map(\.key)).map { grouped[$0] }

        // Accounts are independent of each other: built in pieces on every core, placed in key order.
        let pieces = Parallel.evenPieces(keys.count, minimumPerWorker: 256)
        let accounts = try! Parallel.makeArray(count: keys.count, pieces: pieces) {
            [candidates, members, firsts] piece, emit in
            var deviceBests: [Candidate] = []
            for (key, group) in keys[pieces[piece]] {
                // A device that lists the account twice contributes its best entry once: one device, one ledger.
                deviceBests.removeAll(keepingCapacity: true)
                for index in members[firsts[group]..<firsts[group + 1]] {
                    let candidate = candidates[index]
                    if let same = deviceBests.firstIndex(where: { $0.device == candidate.device }) {
                        if candidate.ranksAbove(deviceBests[same]) { deviceBests[same] = candidate }
                    } else {
                        deviceBests.append(candidate)
                    }
                }
                if deviceBests.count > 1 { deviceBests.sort { $0.device < $1.device } }
                emit(account(key, deviceBests, records, options))
            }
        }

        // In the devices' order already (records of equal ids, which a store's read never gives, keep
        // theirs, as a stable sort by id would).
        let summaries = devices.order.map { index in
            DeviceSummary(
                deviceID: records[index].snapshot.deviceID, deviceName: records[index].snapshot.deviceName,
                generatedAt: records[index].snapshot.generatedAt, appVersion: records[index].snapshot.appVersion,
                providerCount: records[index].snapshot.providers.count,
                stale: options.isStale(since: records[index].snapshot.generatedAt))
        }

        return MergeResult(
            now: options.now, accounts: accounts, devices: summaries, problems: contents.problems,
            newestEntry: newest)
    }

    /// A provider entry competing to speak for its account: where it is, and what ranks it. Plain values
    /// only: candidates are copied and compared tens of thousands of times on a large store, and a
    /// device id held here was a reference counted on every copy, often on the other core's memory.
    private struct Candidate {
        /// The rank of its device's id in byte order (`DeviceOrder`): equal for equal ids.
        var device: Int
        var record: Int
        /// Position in its record: the last tie-break, for a record that lists one account twice.
        var entry: Int
        var lastUpdated: Date
        var generatedAt: Date
        var clockSkew: Bool
        /// The entry carries a session, weekly or per-model window: only such entries speak for windows.
        var hasWindows: Bool

        /// Whether this entry's figures are preferred to `other`'s for the same account: not skewed, then
        /// newest `lastUpdated`, then newest `generatedAt`, then smallest deviceID.
        func ranksAbove(_ other: Candidate) -> Bool {
            if clockSkew != other.clockSkew { return !clockSkew }
            if lastUpdated != other.lastUpdated { return lastUpdated > other.lastUpdated }
            if generatedAt != other.generatedAt { return generatedAt > other.generatedAt }
            if device != other.device { return device < other.device }
            return entry < other.entry
        }
    }

    /// One account from the best candidate of each device that reported it (sorted by device).
    ///
    /// Entries are read where they lie (`Entries.of`), never copied whole: a copy retains and releases
    /// each of an entry's fields, on memory the other core decoded.
    private static func account(
        _ key: AccountKey, _ deviceBests: [Candidate], _ records: [StoredRecord], _ options: MergeOptions
    ) -> MergedAccount {
        let newest = deviceBests.dropFirst().reduce(deviceBests[0]) { $1.ranksAbove($0) ? $1 : $0 }
        let winner =
            newest.hasWindows
            ? newest
            : deviceBests.filter(\.hasWindows).reduce(nil as Candidate?) { best, candidate in
                best.map { candidate.ranksAbove($0) ? candidate : $0 } ?? candidate
            } ?? newest
        let entries = Entries(records: records, candidates: deviceBests)
        let deviceOf = { (candidate: Candidate) in records[candidate.record].snapshot.deviceID }
        // A newer entry without windows stands beside the figures with its error, never in their place.
        let newestError = winner.device == newest.device ? nil : entries.of(newest) { $0.error }

        var account = MergedAccount(
            key: key,
            providerID: entries.of(winner) { $0.providerID },
            accountEmail: key.normalizedEmail == nil
                ? nil : entries.of(winner) { $0.accountEmail.map(AccountKey.trimmed) },
            plan: entries.of(winner) { $0.plan },
            session: entries.of(winner) { $0.session.map(WindowStatus.init) },
            weekly: entries.of(winner) { $0.weekly.map(WindowStatus.init) },
            limits: entries.of(winner) { entry in entry.limits.map { $0.map(LimitStatus.init) } },
            deviceID: deviceOf(winner),
            deviceName: records[winner.record].snapshot.deviceName,
            lastUpdated: entries.of(winner) { $0.lastUpdated },
            seenOn: deviceBests.map(deviceOf),
            tokens: tokenTotals(entries),
            costUSD: costTotals(entries),
            perDevice: deviceBests.map { candidate in
                entries.of(candidate) { entry in
                    DeviceLedger(
                        deviceID: deviceOf(candidate), lastUpdated: entry.lastUpdated, tokensToday: entry.tokens?.today,
                        tokens30Days: entry.tokens?.last30Days, costTodayUSD: entry.costUSD?.today,
                        cost30DaysUSD: entry.costUSD?.last30Days, daily: entry.tokens?.daily ?? [])
                }
            },
            stale: options.isStale(since: entries.of(winner) { $0.lastUpdated }),
            clockSkew: winner.clockSkew,
            error: newestError ?? entries.of(winner) { $0.error },
            errorDeviceID: newestError == nil ? nil : deviceOf(newest),
            history: history(of: entries, options),
            weeklyTrend: weeklyTrend(of: entries, options))
        account.judge(at: options.now)
        return account
    }

    /// The entries of an account's candidates, read where they lie.
    private struct Entries {
        let records: [StoredRecord]
        let candidates: [Candidate]

        /// What `read` makes of `candidate`'s entry, read where it lies.
        func of<T>(_ candidate: Candidate, _ read: (ProviderUsage) -> T) -> T {
            read(records[candidate.record].snapshot.providers[candidate.entry])
        }

        /// `field` of each entry that has it, in the candidates' order.
        func compactMap<T>(_ field: (ProviderUsage) -> T?) -> [T] {
            candidates.compactMap { of($0, field) }
        }

        /// Whether any entry passes `test`.
        func contains(where test: (ProviderUsage) -> Bool) -> Bool {
            candidates.contains { of($0, test) }
        }
    }

    /// The devices' weekly trends (from their samples when the history was read), merged; a half day
    /// dated past the skew tolerance is left out like a skewed sample.
    private static func weeklyTrend(of entries: Entries, _ options: MergeOptions) -> WeeklyTrend? {
        let trends = entries.compactMap { entry in entry.weeklySamples.map(WeeklyTrend.init) ?? entry.weeklyTrend }
            .filter { !$0.points.isEmpty }
        guard !trends.isEmpty else { return nil }
        var merged = WeeklyTrend.merged(trends)
        let latest = options.now.timeIntervalSince1970 + options.maxSkew
        merged.points.removeAll { $0.at > latest }
        return merged.points.isEmpty ? nil : merged
    }

    /// The union of the devices' samples; nil when none carries any (records read without history).
    private static func history(of entries: Entries, _ options: MergeOptions) -> MergedHistory? {
        guard entries.contains(where: { $0.sessionSamples != nil || $0.weeklySamples != nil }) else { return nil }
        return MergedHistory(
            session: MergedHistory.union(
                entries.compactMap(\.sessionSamples), now: options.now, maxSkew: options.maxSkew),
            weekly: MergedHistory.union(entries.compactMap(\.weeklySamples), now: options.now, maxSkew: options.maxSkew)
        )
    }

    private static func tokenTotals(_ entries: Entries) -> TokenTotals? {
        sums(
            entries, { $0.tokens }, today: { $0.today }, last30Days: { $0.last30Days }, zero: 0,
            adding: { $0.saturatingAdding($1) }
        )
        .map {
            TokenTotals(today: $0.today, last30Days: $0.last30Days)
        }
    }

    private static func costTotals(_ entries: Entries) -> CostTotals? {
        sums(entries, { $0.costUSD }, today: { $0.today }, last30Days: { $0.last30Days }, zero: 0, adding: +).map {
            CostTotals(today: $0.today, last30Days: $0.last30Days)
        }
    }

    /// The `today` and `last30Days` figures of the entries' ledgers, each summed over the ledgers that
    /// have it (nil when none has); nil when no entry has a ledger. In one loop, not through arrays of
    /// the figures: every account of a merge has them, and the arrays were half a dozen allocations each.
    private static func sums<Ledger, Value>(
        _ entries: Entries, _ ledger: (ProviderUsage) -> Ledger?, today: (Ledger) -> Value?,
        last30Days: (Ledger) -> Value?, zero: Value, adding add: (Value, Value) -> Value
    ) -> (today: Value?, last30Days: Value?)? {
        var any = false
        var sums: (today: Value?, last30Days: Value?) = (nil, nil)
        for candidate in entries.candidates {
            guard let figures = entries.of(candidate, ledger) else { continue }
            any = true
            if let value = today(figures) { sums.today = add(sums.today ?? zero, value) }
            if let value = last30Days(figures) { sums.last30Days = add(sums.last30Days ?? zero, value) }
        }
        return any ? sums : nil
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
    /// The newest moment any entry carries (its `lastUpdated`, its samples, its trend's points): tells
    /// whether clock skew could have decided a winner, or left out a sample.
    public var newestEntry: Date?

    public init(
        now: Date, accounts: [MergedAccount], devices: [DeviceSummary], problems: [RecordProblem],
        newestEntry: Date?
    ) {
        self.now = now
        self.accounts = accounts
        self.devices = devices
        self.problems = problems
        self.newestEntry = newestEntry
    }

    /// The same merge judged at another moment: staleness and `now` follow `options`.
    ///
    /// - Returns: nil when clock skew may decide a winner or a sample at either moment (an entry or a
    ///   sample dated past the tolerance), because then the merge itself could differ and only a full
    ///   merge is right.
    public func reevaluated(_ options: MergeOptions, mergedWith original: MergeOptions) -> MergeResult? {
        if let newest = newestEntry {
            guard newest.timeIntervalSince(original.now) <= original.maxSkew,
                newest.timeIntervalSince(options.now) <= options.maxSkew
            else { return nil }
        }
        var result = self
        result.now = options.now
        for index in result.accounts.indices {
            result.accounts[index].stale = options.isStale(since: result.accounts[index].lastUpdated)
            result.accounts[index].judge(at: options.now)
        }
        for index in result.devices.indices {
            result.devices[index].stale = options.isStale(since: result.devices[index].generatedAt)
        }
        return result
    }
}
