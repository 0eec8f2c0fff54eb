import Foundation
import Serialization
import Snapshots
import Stores

/// Builders for records in tests: short to write, with every value a test does not care about filled in.
public enum Records {
    /// A date from RFC 3339 text; traps on a typo, which is a bug in the test.
    public static func date(_ text: String) -> Date {
        guard let date = RFC3339.parse(text) else { preconditionFailure("bad test date '\(text)'") }
        return date
    }

    public static func id(_ text: String) -> DeviceID {
        guard let id = DeviceID(rawValue: text) else { preconditionFailure("bad test device id '\(text)'") }
        return id
    }

    public static func entry(
        _ provider: String = "claude", email: String? = "you@example.com", at lastUpdated: String,
        sessionUsed: Double? = 40, weeklyUsed: Double? = nil, resetsAt: String? = nil,
        tokensToday: Int? = nil, tokens30Days: Int? = nil, daily: [DailyTokens]? = nil,
        costToday: Double? = nil, cost30Days: Double? = nil, error: String? = nil
    ) -> ProviderUsage {
        var tokens: TokenUsage?
        if tokensToday != nil || tokens30Days != nil || daily != nil {
            tokens = TokenUsage(today: tokensToday, last30Days: tokens30Days, daily: daily)
        }
        var cost: CostUsage?
        if costToday != nil || cost30Days != nil { cost = CostUsage(today: costToday, last30Days: cost30Days) }
        return ProviderUsage(
            providerID: provider, accountEmail: email, plan: "Pro", lastUpdated: date(lastUpdated),
            session: sessionUsed.map { UsageWindow(usedPercent: $0, windowMinutes: 300, resetsAt: resetsAt.map(date)) },
            weekly: weeklyUsed.map { UsageWindow(usedPercent: $0, windowMinutes: 10080) },
            tokens: tokens, costUSD: cost, error: error)
    }

    /// The session's reset a reading at `lastUpdated` names on 2026-11-30: 15:00 before it, 20:00 from then
    /// (a window read after its reset names the next one; one that names a past reset is due).
    public static func sessionReset(after lastUpdated: String) -> String {
        lastUpdated < "2026-11-30T15:00:00Z" ? "2026-11-30T15:00:00Z" : "2026-11-30T20:00:00Z"
    }

    public static func snapshot(
        _ deviceID: String, generatedAt: String, name: String? = nil, _ providers: [ProviderUsage]
    ) -> DeviceSnapshot {
        DeviceSnapshot(
            deviceID: id(deviceID), deviceName: name ?? deviceID, appVersion: "aggctl test",
            generatedAt: date(generatedAt), providers: providers)
    }

    public static func stored(_ snapshot: DeviceSnapshot, fileName: String? = nil) -> StoredRecord {
        StoredRecord(fileName: fileName ?? snapshot.deviceID.recordName, snapshot: snapshot)
    }

    /// Canonical JSON text of a snapshot.
    public static func json(_ snapshot: DeviceSnapshot) -> Data {
        // Encoding model values cannot fail; a failure is a bug in the codec.
        try! RecordCodec.encode(snapshot)
    }
}

/// Paths inside this repository, found from this file's location so tests run from any folder.
public enum Repository {
    public static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    public static func path(_ relative: String) -> String {
        root + "/" + relative
    }

    /// The inputs a fuzzer found crashing `target` (`Fuzz/Regressions/TARGET/*`), as paths, sorted.
    public static func fuzzRegressions(_ target: String) -> [String] {
        let folder = path("Fuzz/Regressions/\(target)")
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { !$0.hasPrefix(".") }.sorted().map { folder + "/" + $0 }
    }
}
