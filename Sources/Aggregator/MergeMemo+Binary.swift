import Portable
import Serialization
import Snapshots

/// The memo's file: magic, format, reader version, store, fingerprint, options, devices, accounts (in
/// chunks, referring to devices by position), problems, checksum. Device ids are most of an account's
/// text and repeat across accounts: by position, loading shares one string per device.
extension MergeMemo {
    static let magic: [UInt8] = Array("AGGMERGE".utf8)
    /// 6: accounts grouped by the bytes of their e-mails (a memo of 5 may hold two of them as one).
    /// 7: limits in place of per-model weeks, each device's `lastUpdated` (today's figures are judged
    /// by it).
    /// 8: the windows' history and each device's days (a merge of a read with full history is kept
    /// too); the newest moment counts samples.
    static let format: UInt32 = 8
    /// Accounts are stored in this many independent chunks, so loading decodes them on every core.
    static let accountChunks = 8

    func encode() -> Data {
        var out = BinaryWriter(capacity: 4096 + result.accounts.count * 512 + result.devices.count * 96)
        out.header(magic: MergeMemo.magic, format: MergeMemo.format, readerVersion: readerVersion)
        out.string(store)
        out.u64(fingerprint)
        out.date(options.now)
        out.double(options.staleAfter)
        out.double(options.maxSkew)
        out.optionalDate(result.newestEntry)
        out.u32(UInt32(result.devices.count))
        for device in result.devices {
            out.string(device.deviceID.rawValue)
            out.string(device.deviceName)
            out.date(device.generatedAt)
            out.optionalString(device.appVersion)
            out.int(device.providerCount)
            out.u8(device.stale ? 1 : 0)
        }
        var positions: [DeviceID: UInt32] = [:]
        positions.reserveCapacity(result.devices.count)
        for (index, device) in result.devices.enumerated() { positions[device.deviceID] = UInt32(index) }
        // Each chunk: its byte length (set once its accounts are written), its account count, its accounts.
        let accounts = result.accounts
        out.u32(UInt32(MergeMemo.accountChunks))
        for chunk in 0..<MergeMemo.accountChunks {
            let lower = accounts.count * chunk / MergeMemo.accountChunks
            let upper = accounts.count * (chunk + 1) / MergeMemo.accountChunks
            let lengthAt = out.count
            out.u64(0)
            out.u32(UInt32(upper - lower))
            let accountsAt = out.count
            for index in lower..<upper { out.account(accounts[index], devices: positions) }
            out.setU64(UInt64(out.count - accountsAt), at: lengthAt)
        }
        out.u32(UInt32(result.problems.count))
        for problem in result.problems {
            out.string(problem.file)
            out.string(problem.reason)
        }
        return out.sealed()
    }

    static func decode(_ data: Data, store: String, readerVersion: String) throws -> MergeMemo {
        try BinaryReader.unseal(data, magic: magic, format: format, readerVersion: readerVersion) { input in
            guard try input.string() == store else { throw BinaryReader.Corrupt() }
            let fingerprint = try input.u64()
            let options = MergeOptions(
                now: try input.date(), staleAfter: try input.double(), maxSkew: try input.double())
            let newestEntry = try input.optionalDate()
            let devices = try (0..<(try input.count())).map { _ in
                DeviceSummary(
                    deviceID: try input.deviceID(), deviceName: try input.string(), generatedAt: try input.date(),
                    appVersion: try input.optionalString(), providerCount: try input.int(),
                    stale: try input.u8() == 1)
            }
            let deviceIDs = devices.map(\.deviceID)
            var chunks: [(bytes: UnsafeRawBufferPointer, count: Int)] = []
            for _ in 0..<Int(try input.u32()) {
                let length = Int(clamping: try input.u64())
                let count = Int(try input.u32())
                // Each account a byte at least: the accounts are made at their full count first.
                guard count <= length else { throw BinaryReader.Corrupt() }
                chunks.append((try input.take(length), count))
            }
            nonisolated(unsafe) let shared = chunks
            var pieces: [Range<Int>] = []
            for chunk in chunks {
                pieces.append((pieces.last?.upperBound ?? 0)..<((pieces.last?.upperBound ?? 0) + chunk.count))
            }
            let accounts = try Parallel.makeArray(count: pieces.last?.upperBound ?? 0, pieces: pieces) { piece, emit in
                var reader = BinaryReader(shared[piece].bytes)
                for _ in 0..<shared[piece].count {
                    // What depends on the moment is not kept: judged here as the merge judged it.
                    var account = try reader.account(devices: deviceIDs)
                    account.judge(at: options.now)
                    emit(account)
                }
                guard reader.isAtEnd else { throw BinaryReader.Corrupt() }
            }
            let problems = try (0..<(try input.count())).map { _ in
                RecordProblem(file: try input.string(), reason: try input.string())
            }
            return MergeMemo(
                store: store, readerVersion: readerVersion, fingerprint: fingerprint, options: options,
                result: MergeResult(
                    now: options.now, accounts: accounts, devices: devices, problems: problems, newestEntry: newestEntry
                ))
        }
    }
}

extension BinaryWriter {
    mutating func account(_ account: MergedAccount, devices: [DeviceID: UInt32]) {
        func device(_ id: DeviceID) { u32(devices[id] ?? UInt32.max) }
        string(account.key.providerID)
        optionalString(account.key.normalizedEmail)
        optionally(account.key.deviceID) { out, id in out.u32(devices[id] ?? UInt32.max) }
        string(account.providerID)
        // Usually the key's own text: then only a marker, and loading shares the key's string.
        if account.accountEmail != nil && account.accountEmail == account.key.normalizedEmail {
            u8(2)
        } else {
            optionalString(account.accountEmail)
        }
        optionalString(account.plan)
        optionally(account.session) { $0.window($1.window) }
        optionally(account.weekly) { $0.window($1.window) }
        optionally(account.limits) { out, limits in
            out.u32(UInt32(limits.count))
            for limit in limits { out.limit(limit.figures) }
        }
        device(account.deviceID)
        string(account.deviceName)
        date(account.lastUpdated)
        u32(UInt32(account.seenOn.count))
        for id in account.seenOn { device(id) }
        optionally(account.tokens) { out, tokens in
            out.optionalInt(tokens.today)
            out.optionalInt(tokens.last30Days)
        }
        optionally(account.costUSD) { out, cost in
            out.optionalDouble(cost.today)
            out.optionalDouble(cost.last30Days)
        }
        u32(UInt32(account.perDevice.count))
        for ledger in account.perDevice {
            device(ledger.deviceID)
            date(ledger.lastUpdated)
            optionalInt(ledger.tokensToday)
            optionalInt(ledger.tokens30Days)
            optionalDouble(ledger.costTodayUSD)
            optionalDouble(ledger.cost30DaysUSD)
            u32(UInt32(ledger.daily.count))
            for day in ledger.daily {
                string(day.date)
                int(day.tokens)
                optionalDouble(day.costUSD)
            }
        }
        optionally(account.history) { out, history in
            out.samples(history.session)
            out.samples(history.weekly)
        }
        u8((account.stale ? 1 : 0) | (account.clockSkew ? 2 : 0))
        optionalString(account.error)
        optionally(account.errorDeviceID) { out, id in out.u32(devices[id] ?? UInt32.max) }
        optionally(account.weeklyTrend) { $0.trend($1) }
    }
}

extension BinaryReader {
    /// Checked again, though they were valid when written: the checksum vouches only that the bytes are
    /// the ones written, and anyone who can write the state folder can write a sealed file. A device id
    /// names a record's file, so it is never taken on trust (1000 ids cost microseconds).
    mutating func deviceID() throws -> DeviceID {
        guard let id = DeviceID(rawValue: try string()) else { throw Corrupt() }
        return id
    }

    mutating func device(_ devices: [DeviceID]) throws -> DeviceID {
        let position = Int(try u32())
        guard position < devices.count else { throw Corrupt() }
        return devices[position]
    }

    mutating func account(devices: [DeviceID]) throws -> MergedAccount {
        let providerKey = try string()
        let email = try optionalString()
        let keyDevice = try optionally { try $0.device(devices) }
        let key = AccountKey(
            providerID: providerKey, normalizedEmail: email, deviceID: keyDevice)
        let providerID = try string()
        let accountEmail: String?
        switch try u8() {
        case 0: accountEmail = nil
        case 1: accountEmail = try string()
        case 2: accountEmail = email
        default: throw Corrupt()
        }
        let plan = try optionalString()
        let session = try optionally { WindowStatus(try $0.window()) }
        let weekly = try optionally { WindowStatus(try $0.window()) }
        let limits = try optionally { reader in
            try (0..<(try reader.count())).map { _ in LimitStatus(try reader.limit()) }
        }
        let deviceID = try device(devices)
        let deviceName = try string()
        let lastUpdated = try date()
        let seenOn = try (0..<(try count())).map { _ in try device(devices) }
        let tokens = try optionally { reader in
            TokenTotals(today: try reader.optionalInt(), last30Days: try reader.optionalInt())
        }
        let cost = try optionally { reader in
            CostTotals(today: try reader.optionalDouble(), last30Days: try reader.optionalDouble())
        }
        let perDevice = try (0..<(try count())).map { _ in
            DeviceLedger(
                deviceID: try device(devices), lastUpdated: try date(), tokensToday: try optionalInt(),
                tokens30Days: try optionalInt(), costTodayUSD: try optionalDouble(),
                cost30DaysUSD: try optionalDouble(),
                daily: try (0..<(try count())).map { _ in
                    DailyTokens(date: try string(), tokens: try int(), costUSD: try optionalDouble())
                })
        }
        let history = try optionally { reader in
            MergedHistory(session: try reader.samples(), weekly: try reader.samples())
        }
        let flags = try u8()
        let error = try optionalString()
        let errorDeviceID = try optionally { try $0.device(devices) }
        let trend = try optionally { try $0.trend() }
        var account = MergedAccount(
            key: key, providerID: providerID, accountEmail: accountEmail, plan: plan, session: session, weekly: weekly,
            limits: limits, deviceID: deviceID, deviceName: deviceName, lastUpdated: lastUpdated,
            seenOn: seenOn, tokens: tokens, costUSD: cost, perDevice: perDevice, stale: flags & 1 != 0,
            clockSkew: flags & 2 != 0, error: error, errorDeviceID: errorDeviceID, weeklyTrend: trend)
        account.history = history
        return account
    }
}

// The helpers above, made in this module: Snapshots' generic `optional` is not specialized across the
// module boundary, and each call through its generic entry point asked the runtime for the metadata of
// `Optional<Value>` (545 instructions, 11,488 times for a thousand accounts): most of encoding an account.
// Marking Snapshots' own `@inlinable`, even `@inline(__always)`, left the calls unspecialized (callgrind:
// 109.2 M instructions for the run that keeps the memo, against 99.3 M with these).
extension BinaryWriter {
    fileprivate mutating func optionally<Value>(_ value: Value?, _ write: (inout BinaryWriter, Value) -> Void) {
        guard let value else { return u8(0) }
        u8(1)
        write(&self, value)
    }
}

extension BinaryWriter {
    fileprivate mutating func samples(_ samples: [UsageSample]) {
        u32(UInt32(samples.count))
        for sample in samples {
            date(sample.at)
            double(sample.usedPercent)
            optionalDate(sample.resetsAt)
        }
    }
}

extension BinaryReader {
    fileprivate mutating func samples() throws -> [UsageSample] {
        try (0..<(try count())).map { _ in
            UsageSample(at: try date(), usedPercent: try double(), resetsAt: try optionalDate())
        }
    }

    fileprivate mutating func optionally<Value>(_ read: (inout BinaryReader) throws -> Value) throws -> Value? {
        switch try u8() {
        case 0: return nil
        case 1: return try read(&self)
        default: throw Corrupt()
        }
    }
}
