import Portable
import Serialization
import Snapshots

/// Ledger months read before, kept by device, month and the file's version (`KeptFile.ledgerMonths`): a
/// month whose file has the version it had is not read or decoded again. Past months never change, the
/// current one only on the devices that published since, so `cost` over a store of a thousand devices
/// reads what changed. A cache, never the only copy: damaged or another version's, it is ignored.
public struct LedgerMonthCache: Sendable {
    public struct Key: Hashable, Sendable {
        public var device: DeviceID
        public var month: String

        public init(device: DeviceID, month: String) {
            self.device = device
            self.month = month
        }
    }

    public struct Entry: Sendable {
        public var version: RecordVersion
        public var ledger: Ledger
        public var notes: [String]

        public init(version: RecordVersion, ledger: Ledger, notes: [String] = []) {
            self.version = version
            self.ledger = ledger
            self.notes = notes
        }
    }

    public var entries: [Key: Entry] = [:]

    public init() {}

    static let magic = Array("AGGLEDM1".utf8)
    static let format: UInt32 = 1

    public static func load(from path: String, readerVersion: String) -> Self {
        guard let data = FileSystem.contents(of: path) else { return Self() }
        return
            (try? BinaryReader.unseal(data, magic: magic, format: format, readerVersion: readerVersion) { input in
                var cache = Self()
                for _ in 0..<(try input.count()) {
                    let device = try input.string()
                    guard DeviceID.problem(with: device) == nil else { throw BinaryReader.Corrupt() }
                    let key = Key(device: DeviceID(alreadyValidated: device), month: try input.string())
                    let version = try input.version()
                    let notes = try (0..<(try input.count())).map { _ in try input.string() }
                    let ledger = try Self.ledger(of: key, from: &input)
                    cache.entries[key] = Entry(version: version, ledger: ledger, notes: notes)
                }
                return cache
            }) ?? Self()
    }

    public func save(to path: String, readerVersion: String) {
        let rowCount = entries.values.reduce(0) { $0 + $1.ledger.rows.count }
        var out = BinaryWriter(capacity: 4096 + rowCount * 72)
        out.header(magic: Self.magic, format: Self.format, readerVersion: readerVersion)
        out.u32(UInt32(entries.count))
        for (key, entry) in entries {
            out.string(key.device.rawValue)
            out.string(key.month)
            out.version(entry.version)
            out.u32(UInt32(entry.notes.count))
            for note in entry.notes { out.string(note) }
            Self.write(entry.ledger, to: &out)
        }
        try? AtomicFile.writePrivate(out.sealed(), to: path)
    }

    /// A month's rows with their names in a table of their own: a month names a few providers, accounts and
    /// models hundreds of times.
    private static func write(_ ledger: Ledger, to out: inout BinaryWriter) {
        var names: [String] = []
        var numbers: [String: UInt32] = [:]
        func number(_ name: String) -> UInt32 {
            if let found = numbers[name] { return found }
            names.append(name)
            numbers[name] = UInt32(names.count - 1)
            return UInt32(names.count - 1)
        }
        let rows = ledger.rows.map { row in
            (row, number(row.providerID), row.accountEmail.map(number).map { $0 + 1 } ?? 0, number(row.model))
        }
        out.date(ledger.generatedAt)
        out.optionalString(ledger.pricesAsOf)
        out.u32(UInt32(names.count))
        for name in names { out.string(name) }
        out.u32(UInt32(rows.count))
        for (row, provider, account, model) in rows {
            out.date(row.at)
            out.u32(provider)
            out.u32(account)
            out.u32(model)
            out.int(row.inputTokens)
            out.int(row.outputTokens)
            out.int(row.cacheWriteTokens)
            out.int(row.cacheReadTokens)
            out.int(row.reasoningTokens ?? -1)
            out.double(row.costUSD ?? .nan)
        }
    }

    private static func ledger(of key: Key, from input: inout BinaryReader) throws -> Ledger {
        let generatedAt = try input.date()
        let pricesAsOf = try input.optionalString()
        let names = try (0..<(try input.count())).map { _ in try input.string() }
        func name(_ number: UInt32) throws -> String {
            guard Int(number) < names.count else { throw BinaryReader.Corrupt() }
            return names[Int(number)]
        }
        let rows = try (0..<(try input.count())).map { _ -> LedgerRow in
            let at = try input.date()
            let provider = try name(try input.u32())
            let account = try input.u32()
            let model = try name(try input.u32())
            let counts = try (0..<4).map { _ in try input.int() }
            let reasoning = try input.int()
            let cost = try input.double()
            return LedgerRow(
                at: at, providerID: provider, accountEmail: account == 0 ? nil : try name(account - 1), model: model,
                inputTokens: counts[0], outputTokens: counts[1], cacheWriteTokens: counts[2],
                cacheReadTokens: counts[3],
                reasoningTokens: reasoning < 0 ? nil : reasoning, costUSD: cost.isNaN ? nil : cost)
        }
        return Ledger(
            deviceID: key.device, month: key.month, generatedAt: generatedAt, pricesAsOf: pricesAsOf, rows: rows)
    }
}
