import Foundation
import Portable
import Testing

/// Time zones from the tz database, read by aggctl's own TZif reader, checked against full Foundation's
/// (which the tests link and the shipped binary does not) and against the C library's `localtime_r`.
struct ZoneInfoTests {
    static let zones = [
        "America/Los_Angeles", "America/New_York", "Asia/Kolkata", "Asia/Calcutta", "Europe/Berlin",
        "Australia/Lord_Howe", "Pacific/Chatham", "America/Sao_Paulo", "Africa/Casablanca", "Asia/Tehran",
        "Europe/London", "Australia/Sydney", "Pacific/Apia", "America/St_Johns", "Asia/Saigon", "Etc/GMT+5",
    ]

    /// Instants from 1950 to 2100, DST changes included, the same every run.
    static func instants() -> [Int64] {
        var generator = SplitMix(seed: 7)
        var values: [Int64] = (0..<400).map { _ in Int64(generator.next() % 4_733_510_400) - 631_152_000 }
        // Either side of 2026's changes in the US and Europe, and a leap day.
        values += [1_772_964_000, 1_772_963_999, 1_793_523_600, 1_793_523_599, 1_774_746_000, 1_792_890_000]
        values += [1_709_164_800, 0, 4_102_444_800]
        return values
    }

    @Test("offsets match Foundation's for every zone from 1950 to 2100", arguments: zones)
    func offsetsMatchFoundation(_ name: String) throws {
        let zone = try #require(ZoneInfo.named(name), "\(name) is in /usr/share/zoneinfo (Debian tzdata)")
        let reference = try #require(TimeZone(identifier: name))
        for seconds in Self.instants() {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            #expect(zone.offset(atUTC: seconds) == reference.secondsFromGMT(for: date), "\(name) at \(seconds)")
        }
    }

    @Test("a wall-clock reading goes back to the moment Foundation's calendar gives", arguments: zones)
    func readingsMatchFoundation(_ name: String) throws {
        let zone = try #require(ZoneInfo.named(name))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: name))
        for seconds in Self.instants() {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            let civil = zone.civilTime(atUTC: seconds)
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
            #expect(
                [civil.year, civil.month, civil.day, civil.hour, civil.minute, civil.second]
                    == [parts.year, parts.month, parts.day, parts.hour, parts.minute, parts.second],
                "\(name) at \(seconds)")
            // Back again: the same second, or for a reading that happens twice, its first.
            let back = try #require(zone.utcSeconds(of: civil))
            #expect(back == seconds || (back < seconds && zone.civilTime(atUTC: back) == civil), "\(name) \(civil)")
        }
    }

    @Test("the hour skipped and the hour repeated, as mktime reads them")
    func gapsAndFolds() throws {
        let zone = try #require(ZoneInfo.named("America/Los_Angeles"))
        // 2026-03-08 02:30 never happens: read with PST it is 10:30 UTC, 03:30 PDT.
        #expect(zone.utcSeconds(of: CivilTime(year: 2026, month: 3, day: 8, hour: 2, minute: 30)) == 1_772_965_800)
        // 2026-11-01 01:30 happens twice: the first, in PDT, is 08:30 UTC.
        #expect(zone.utcSeconds(of: CivilTime(year: 2026, month: 11, day: 1, hour: 1, minute: 30)) == 1_793_521_800)
        #expect(zone.utcSeconds(of: CivilTime(year: 2026, month: 2, day: 30)) == nil)
    }

    @Test("TZ as the C library reads it: names, paths, POSIX rules, empty and unknown values")
    func localZone() throws {
        let none = "/nonexistent/localtime"
        #expect(ZoneInfo.local(environment: ["TZ": "Asia/Kolkata"], localtime: none).offset(atUTC: 0) == 19_800)
        #expect(ZoneInfo.local(environment: ["TZ": ":Asia/Kolkata"], localtime: none).identifier == "Asia/Kolkata")
        #expect(
            ZoneInfo.local(environment: ["TZ": "/usr/share/zoneinfo/Europe/Berlin"], localtime: none)
                .offset(atUTC: 1_783_000_000) == 7200)
        let posix = ZoneInfo.local(environment: ["TZ": "EST5EDT,M3.2.0,M11.1.0"], localtime: none)
        #expect(posix.offset(atUTC: 1_783_000_000) == -4 * 3600)
        #expect(posix.offset(atUTC: 1_798_000_000) == -5 * 3600)
        #expect(ZoneInfo.local(environment: ["TZ": "<+0330>-3:30"], localtime: none).offset(atUTC: 0) == 12_600)
        #expect(ZoneInfo.local(environment: ["TZ": ""], localtime: none) == .utc)
        #expect(ZoneInfo.local(environment: ["TZ": "No/Such_Zone"], localtime: none) == .utc)
        #expect(ZoneInfo.local(environment: [:], localtime: none) == .utc)
        #expect(
            ZoneInfo.local(environment: [:], localtime: "/usr/share/zoneinfo/Asia/Kolkata").offset(atUTC: 0)
                == 19_800)
    }

    @Test("names from outside never leave the database folder")
    func hostileNames() {
        for name in [
            "../../etc/passwd", "/etc/localtime", "America/../../../etc/shadow", "", "a//b", ".hidden",
            "America/Los_Angeles\u{0}", "-rf", String(repeating: "a", count: 200), "America/Los Angeles",
        ] {
            #expect(ZoneInfo.named(name) == nil, "\(name.debugDescription)")
        }
        // A folder and a FIFO are no zone files, and reading one never waits.
        #expect(ZoneInfo.named("America") == nil)
    }

    @Test("damaged TZif files are refused, never read past their end")
    func damagedFiles() throws {
        let bytes = try #require(FileManager.default.contents(atPath: "/usr/share/zoneinfo/America/New_York"))
        let whole = [UInt8](bytes)
        #expect(try ZoneInfo.parse(whole, identifier: "x").offset(atUTC: 0) == -18_000)
        for length in stride(from: 0, to: whole.count - 1, by: 7) {
            // Every prefix cut before the footer's end fails; none traps.
            #expect(throws: ZoneInfo.FormatError.self) {
                _ = try ZoneInfo.parse(Array(whole[0..<length]), identifier: "x")
            }
        }
        var huge = whole
        huge[32] = 0xFF  // a type count in the billions
        #expect(throws: ZoneInfo.FormatError.self) { _ = try ZoneInfo.parse(huge, identifier: "x") }
    }

    @Test("POSIX rules: southern summers, Julian days, times past midnight, permanent daylight time")
    func posixRules() throws {
        let sydney = try #require(PosixZoneRule.parse("AEST-10AEDT,M10.1.0,M4.1.0/3"))
        #expect(sydney.offset(atUTC: 1_799_000_000) == 11 * 3600)  // January 2027
        #expect(sydney.offset(atUTC: 1_783_000_000) == 10 * 3600)  // July 2026
        let julian = try #require(PosixZoneRule.parse("XXX3YYY,J60/25,300"))
        #expect(julian.daylight?.start == .init(day: .julian(60), seconds: 25 * 3600))
        let permanent = try #require(PosixZoneRule.parse("EST5EDT,0/0,J365/25"))
        #expect(permanent.offset(atUTC: 1_783_000_000) == -4 * 3600)
        #expect(permanent.offset(atUTC: 1_798_000_000) == -4 * 3600)
        for bad in ["", "E5", "EST", "EST5EDT,M13.1.0,M1.1.0", "EST5EDT,M3.2.0", "EST99", "<AB>5", "EST5EDT,J0,J1"] {
            #expect(PosixZoneRule.parse(bad) == nil, "\(bad)")
        }
    }

    @Test("civil dates: months clamped, days across years, weekdays")
    func civilArithmetic() {
        let jan31 = CivilTime(year: 2028, month: 1, day: 31)
        #expect(jan31.adding(months: 1) == CivilTime(year: 2028, month: 2, day: 29))
        #expect(jan31.adding(months: -1) == CivilTime(year: 2027, month: 12, day: 31))
        #expect(CivilTime(year: 2026, month: 12, day: 31).adding(days: 1) == CivilTime(year: 2027, month: 1, day: 1))
        #expect(CivilTime(year: 2026, month: 12, day: 4).weekday == 5)  // a Friday
        for days in stride(from: Int64(-800_000), to: 800_000, by: 997) {
            let (year, month, day) = CivilTime.civil(fromDays: days)
            #expect(CivilTime.days(year: year, month: month, day: day) == days)
        }
    }

    @Test("a FIFO in the zone folder is never waited on")
    func fifo() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("zones-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder + "/Area", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(mkfifo(folder + "/Area/Pipe", 0o600) == 0)
        #expect(ZoneInfo.named("Area/Pipe", directory: folder) == nil)
    }
}

/// A small seeded generator, so the instants are the same every run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
