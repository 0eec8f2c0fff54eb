import Portable
import Serialization
import Snapshots

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The merged weekly history a reader has seen of one store, kept longer than records carry it (records
/// hold 14 days; a forecast wants earlier weeks): `report` adds the store's merged weekly samples each
/// run and draws forecasts from the union.
///
/// Kept in the state directory (`archive/store-<hash>.weekly`), 8 weeks as the desktop app keeps, at
/// most one sample per hour and reset, in aggctl's guarded binary form (a JSON archive of a 1000-device
/// store took half a second to read and write). No lock: two reports at once both write a union, and
/// what the slower one misses, the next run takes from the store again. A damaged archive is set aside
/// and started afresh: losing it only costs forecasts until weeks accumulate again.
public struct HistoryArchive: Sendable, Equatable {
    public var store: String
    /// By `AccountKey.description`: the weekly samples, oldest first.
    public var accounts: [String: [UsageSample]] = [:]

    public init(store: String) {
        self.store = store
    }

    public static let retention: TimeInterval = 56 * 86_400

    /// Adds the accounts' merged weekly history and returns, per account key, everything known of it.
    public mutating func absorb(_ merged: [MergedAccount], now: Date, maxSkew: TimeInterval) -> [String: [UsageSample]]
    {
        let oldest = now.addingTimeInterval(-Self.retention)
        for account in merged {
            guard let weekly = account.history?.weekly, !weekly.isEmpty else { continue }
            let key = account.key.description
            accounts[key] = Self.hourly(MergedHistory.union([accounts[key] ?? [], weekly], now: now, maxSkew: maxSkew))
        }
        for key in Array(accounts.keys) {
            let kept = accounts[key]!.drop { $0.at < oldest }
            accounts[key] = kept.isEmpty ? nil : Array(kept)
        }
        return accounts
    }

    /// One sample per hour and reset (the latest: usage only grows within a window), enough for the
    /// hourly curves a forecast draws.
    static func hourly(_ samples: [UsageSample]) -> [UsageSample] {
        var result: [UsageSample] = []
        result.reserveCapacity(samples.count)
        for sample in samples {
            if let last = result.last,
                Int(last.at.timeIntervalSince1970 / 3600) == Int(sample.at.timeIntervalSince1970 / 3600),
                SamplingRule.sameReset(last.resetsAt, sample.resetsAt)
            {
                result[result.count - 1] = sample
            } else {
                result.append(sample)
            }
        }
        return result
    }

    // MARK: The file

    /// What `load` found.
    public enum Loaded: Sendable, Equatable {
        case fresh
        case loaded(HistoryArchive)
        /// Not a valid archive of this store; moved to `setAsideAt`.
        case damaged(setAsideAt: String)
    }

    static let magic: [UInt8] = Array("AGGWEEKS".utf8)
    static let format: UInt32 = 1
    /// Not the aggctl version: weeks of history must survive an upgrade.
    static let writer = "archive 1"

    public static func load(from path: String, store: String) -> Loaded {
        guard let data = FileSystem.contents(of: path) else { return .fresh }
        do {
            return .loaded(try decode(data, store: store))
        } catch {
            let aside = "\(path).damaged-\(getpid())-\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
            guard rename(path, aside) == 0 else { return .fresh }
            return .damaged(setAsideAt: aside)
        }
    }

    /// Writes the archive atomically, creating its folder (mode 0700).
    public func save(to path: String) throws {
        try FileSystem.createFolders(FileSystem.parent(of: path))
        try AtomicFile.write(encode(), to: path, durable: true)
    }

    func encode() -> Data {
        var out = BinaryWriter(capacity: 64 + accounts.values.reduce(0) { $0 + 64 + $1.count * 24 })
        out.header(magic: Self.magic, format: Self.format, readerVersion: Self.writer)
        out.string(store)
        out.u32(UInt32(accounts.count))
        for key in accounts.keys.sorted() {
            let samples = accounts[key]!
            out.string(key)
            out.u32(UInt32(samples.count))
            for sample in samples {
                out.double(sample.at.timeIntervalSince1970)
                out.double(sample.usedPercent)
                out.double(sample.resetsAt?.timeIntervalSince1970 ?? .nan)
            }
        }
        return out.sealed()
    }

    static func decode(_ data: Data, store: String) throws -> HistoryArchive {
        try BinaryReader.unseal(data, magic: magic, format: format, readerVersion: writer) { input in
            guard try input.string() == store else { throw BinaryReader.Corrupt() }
            var archive = HistoryArchive(store: store)
            for _ in 0..<Int(try input.u32()) {
                let key = try input.string()
                let count = Int(try input.u32())
                var samples: [UsageSample] = []
                samples.reserveCapacity(min(count, 1 << 16))
                for _ in 0..<count {
                    let at = try input.double()
                    let used = try input.double()
                    let reset = try input.double()
                    guard at.isFinite, used.isFinite else { throw BinaryReader.Corrupt() }
                    samples.append(
                        UsageSample(
                            at: Date(timeIntervalSince1970: at), usedPercent: used,
                            resetsAt: reset.isNaN ? nil : Date(timeIntervalSince1970: reset)))
                }
                archive.accounts[key] = samples
            }
            return archive
        }
    }
}
