import HTTP
import Portable
import Serialization
import Snapshots
import Stores
import TextSafety

/// Conversions of flag values into typed options; each failure names the flag and the accepted form.
enum ValueParsers {
    // Each names where the value came from (`--now`, `AGGCTL_STORE`, `config line 3 (stale-after)`).

    /// `--tz ZONE` (or the config's `tz`): a zone of the tz database; without one, the machine's (`TZ`,
    /// then `/etc/localtime`). Read through `ZoneInfo`: the shipped binary's Foundation knows no zones.
    static func zone(_ setting: Setting?, environment: [String: String]) throws -> ZoneInfo {
        guard let setting else { return ZoneInfo.local(environment: environment) }
        if setting.value == "UTC" || setting.value == "Etc/UTC" { return .utc }
        guard let zone = ZoneInfo.named(setting.value, directory: ZoneInfo.databaseDirectory(environment: environment))
        else {
            throw UsageError(
                "\(setting.source): '\(setting.value)' is not a time zone of the tz database "
                    + "(for example America/Los_Angeles, Asia/Kolkata, UTC)")
        }
        return zone
    }

    static func date(_ setting: Setting) throws -> Date {
        guard let date = RFC3339.parse(setting.value) else {
            throw UsageError(
                "\(setting.source): '\(setting.value)' is not a date; expected RFC 3339 such as 2026-11-30T12:00:00Z")
        }
        return date
    }

    /// A non-negative number of seconds (decimals allowed).
    /// A duration: a number and a unit (`90s`, `15m`, `1h`, `2d`), or a bare number of seconds.
    static func seconds(_ setting: Setting) throws -> TimeInterval {
        var text = Substring(setting.value.trimmingBlanks())
        var unit: Double = 1
        if let last = text.last, let scale = ["s": 1.0, "m": 60, "h": 3600, "d": 86_400][String(last).lowercased()] {
            unit = scale
            text = text.dropLast()
        }
        // Digits and a point only: no sign, exponent, "inf" or "nan" reaches Double's parser.
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let value = Double(text),
            value.isFinite, value * unit < 1e12
        else {
            throw UsageError(
                "\(setting.source): '\(SafeText.line(setting.value, limit: 40))' is not a duration; expected a number "
                    + "and a unit such as 90s, 15m, 1h or 2d (a bare number is seconds)")
        }
        return value * unit
    }

    static func deviceID(_ setting: Setting) throws -> DeviceID {
        if let problem = DeviceID.problem(with: setting.value) {
            throw UsageError("\(setting.source): '\(setting.value)' is not a valid device id: \(problem)")
        }
        return DeviceID(rawValue: setting.value)!
    }

    static func store(_ setting: Setting) throws -> StoreLocation {
        do {
            return try StoreLocation.parse(setting.value)
        } catch {
            throw UsageError(
                "\(setting.source): '\(HTTPRequest.displayURL(setting.value))' \(error.reason); expected a folder "
                    + "path, file:// URL, http(s):// WebDAV URL or s3://BUCKET/PREFIX/")
        }
    }
}
