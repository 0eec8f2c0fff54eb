import Portable

/// The cache's file format: magic, format number, reader version, store, entries, then a checksum of
/// everything before it. Dates are stored as their exact `Double`, so a cached record
/// equals the parsed one bit for bit.
extension ParseCache {
    static let magic: [UInt8] = Array("AGGCACHE".utf8)
    static let format: UInt32 = 3

    func encode() -> Data {
        var out = BinaryWriter(capacity: 4096 + entries.count * 1024)
        out.header(magic: ParseCache.magic, format: ParseCache.format, readerVersion: readerVersion)
        out.string(store)
        out.u32(UInt32(entries.count))
        // Any order: the reader builds a dictionary.
        for (name, entry) in entries {
            out.string(name)
            out.version(entry.version)
            switch entry.outcome {
            case .success(let record):
                out.u8(0)
                out.snapshot(record.snapshot)
                out.u32(UInt32(record.notes.count))
                for note in record.notes { out.string(note) }
            case .failure(let problem):
                out.u8(1)
                out.string(problem.reason)
            }
        }
        return out.sealed()
    }

    static func decode(_ data: Data, store: String, readerVersion: String) throws -> ParseCache {
        try BinaryReader.unseal(data, magic: magic, format: format, readerVersion: readerVersion) { input in
            guard try input.string() == store else { throw BinaryReader.Corrupt() }
            var cache = ParseCache(store: store, readerVersion: readerVersion)
            let count = Int(try input.u32())
            cache.entries.reserveCapacity(min(count, 1 << 20))
            for _ in 0..<count {
                let name = try input.string()
                let version = try input.version()
                switch try input.u8() {
                case 0:
                    let snapshot = try input.snapshot()
                    let notes = try (0..<Int(try input.u32())).map { _ in try input.string() }
                    cache.entries[name] = Entry(
                        version: version, outcome: .success(DecodedRecord(snapshot: snapshot, notes: notes)))
                case 1:
                    cache.entries[name] = Entry(
                        version: version, outcome: .failure(RecordProblem(file: name, reason: try input.string())))
                default:
                    throw BinaryReader.Corrupt()
                }
            }
            return cache
        }
    }
}

/// The model's types in the cache's binary form.
extension BinaryWriter {
    package mutating func version(_ version: RecordVersion) {
        switch version {
        case .file(let size, let modified, let changed, let inode):
            u8(0)
            u64(UInt64(bitPattern: size))
            u64(UInt64(bitPattern: modified))
            u64(UInt64(bitPattern: changed))
            u64(inode)
        case .tag(let tag):
            u8(1)
            string(tag)
        }
    }

    package mutating func window(_ window: UsageWindow) {
        double(window.usedPercent)
        optionalInt(window.windowMinutes)
        optionalDate(window.resetsAt)
    }

    package mutating func snapshot(_ snapshot: DeviceSnapshot) {
        int(snapshot.schemaVersion)
        string(snapshot.deviceID.rawValue)
        string(snapshot.deviceName)
        optionalString(snapshot.appVersion)
        date(snapshot.generatedAt)
        u32(UInt32(snapshot.providers.count))
        for index in snapshot.providers.indices {
            let provider = snapshot.providers[index]
            string(provider.providerID)
            optionalString(provider.accountEmail)
            optionalString(provider.plan)
            date(provider.lastUpdated)
            optional(provider.session) { $0.window($1) }
            optional(provider.weekly) { $0.window($1) }
            optional(provider.modelWeekly) { out, models in
                out.u32(UInt32(models.count))
                for model in models {
                    out.string(model.name)
                    out.window(model.window)
                }
            }
            // Only what a merge keeps: the history (daily entries, samples) is never cached.
            optional(provider.tokens) { out, tokens in
                out.optionalInt(tokens.today)
                out.optionalInt(tokens.last30Days)
            }
            optional(provider.costUSD) { out, cost in
                out.optionalDouble(cost.today)
                out.optionalDouble(cost.last30Days)
            }
            optionalString(provider.error)
            optional(provider.weeklyTrend) { $0.trend($1) }
        }
    }

    package mutating func trend(_ trend: WeeklyTrend) {
        u32(UInt32(trend.points.count))
        for point in trend.points {
            int(point.halfDay)
            double(point.at)
            double(point.usedPercent)
        }
    }
}

extension BinaryReader {
    package mutating func version() throws -> RecordVersion {
        switch try u8() {
        case 0:
            return .file(
                size: Int64(bitPattern: try u64()), modified: Int64(bitPattern: try u64()),
                changed: Int64(bitPattern: try u64()), inode: try u64())
        case 1:
            return .tag(try string())
        default:
            throw Corrupt()
        }
    }

    package mutating func window() throws -> UsageWindow {
        UsageWindow(
            usedPercent: try double(), windowMinutes: try optionalInt(),
            resetsAt: try optionalDate())
    }

    package mutating func trend() throws -> WeeklyTrend {
        let count = Int(try u32())
        guard count <= WeeklyTrend.span else { throw Corrupt() }
        return WeeklyTrend(
            points: try (0..<count).map { _ in
                WeeklyTrend.Point(halfDay: try int(), at: try double(), usedPercent: try double())
            })
    }

    package mutating func snapshot() throws -> DeviceSnapshot {
        let schemaVersion = try int()
        guard let deviceID = DeviceID(rawValue: try string()) else { throw Corrupt() }
        let deviceName = try string()
        let appVersion = try optionalString()
        let generatedAt = try date()
        let providerCount = Int(try u32())
        var providers: [ProviderUsage] = []
        providers.reserveCapacity(min(providerCount, 1024))
        for _ in 0..<providerCount {
            let providerID = try string()
            let accountEmail = try optionalString()
            let plan = try optionalString()
            let lastUpdated = try date()
            let session = try optional { try $0.window() }
            let weekly = try optional { try $0.window() }
            let modelWeekly = try optional { reader in
                try (0..<Int(try reader.u32())).map { _ in
                    NamedWindow(name: try reader.string(), window: try reader.window())
                }
            }
            let tokens = try optional { reader in
                TokenUsage(
                    today: try reader.optionalInt(), last30Days: try reader.optionalInt())
            }
            let cost = try optional { reader in
                CostUsage(
                    today: try reader.optionalDouble(), last30Days: try reader.optionalDouble())
            }
            let error = try optionalString()
            var entry = ProviderUsage(
                providerID: providerID, accountEmail: accountEmail, plan: plan, lastUpdated: lastUpdated,
                session: session, weekly: weekly, modelWeekly: modelWeekly, tokens: tokens, costUSD: cost,
                error: error)
            entry.weeklyTrend = try optional { try $0.trend() }
            providers.append(entry)
        }
        return DeviceSnapshot(
            schemaVersion: schemaVersion, deviceID: deviceID, deviceName: deviceName, appVersion: appVersion,
            generatedAt: generatedAt, providers: providers)
    }
}
