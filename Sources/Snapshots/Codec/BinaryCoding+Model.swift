import Portable

/// The model's types in the binary form of aggctl's kept files (the parse cache, the merge memo, the
/// collectors' states).
extension BinaryWriter {
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
                try (0..<(try reader.count())).map { _ in
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
            let weeklyTrend = try optional { try $0.trend() }
            // Made in the append: a local entry appended was copied, and the copy retained its texts.
            providers.append(
                ProviderUsage(
                    providerID: providerID, accountEmail: accountEmail, plan: plan, lastUpdated: lastUpdated,
                    session: session, weekly: weekly, modelWeekly: modelWeekly, tokens: tokens, costUSD: cost,
                    error: error, weeklyTrend: weeklyTrend))
        }
        return DeviceSnapshot(
            schemaVersion: schemaVersion, deviceID: deviceID, deviceName: deviceName, appVersion: appVersion,
            generatedAt: generatedAt, providers: providers)
    }
}
