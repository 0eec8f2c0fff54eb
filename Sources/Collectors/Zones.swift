import Portable

/// The time zones a collector reads limit messages in: the machine's own (a Codex message's "try again
/// at 8:16 AM" is the machine's time) and the tz database for the zones messages name ("resets 3pm
/// (America/Los_Angeles)"). Handed in, so that tests fix both, and read through `ZoneInfo`, so that
/// the shipped binary, whose Foundation knows no zones, reads them as the tests do.
public struct Zones: Sendable {
    public var local: ZoneInfo
    /// The tz database folder (`TZDIR`, else `/usr/share/zoneinfo`).
    public var database: String

    public init(local: ZoneInfo, database: String = "/usr/share/zoneinfo") {
        self.local = local
        self.database = database
    }

    /// The machine's zones as the C library finds them from `environment` (`TZ`, `TZDIR`).
    public static func machine(environment: [String: String]) -> Zones {
        Zones(
            local: ZoneInfo.local(environment: environment),
            database: ZoneInfo.databaseDirectory(environment: environment))
    }

    /// UTC, and the usual database.
    public static let utc = Zones(local: .utc)

    /// The zone named `name` in the database; nil for no such zone or a name that is no database name.
    func named(_ name: String) -> ZoneInfo? {
        ZoneInfo.named(name, directory: database)
    }
}
