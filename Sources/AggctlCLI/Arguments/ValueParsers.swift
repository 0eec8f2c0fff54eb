import HTTP
import Portable
import Snapshots
import Stores

/// Conversions of flag values into typed options; each failure names the flag and the accepted form.
enum ValueParsers {
    // Each names where the value came from (`--now`, `AGGCTL_STORE`, `config line 3 (stale-after)`).

    static func date(_ setting: Setting) throws -> Date {
        guard let date = RFC3339.parse(setting.value) else {
            throw UsageError(
                "\(setting.source): '\(setting.value)' is not a date; expected RFC 3339 such as 2026-11-30T12:00:00Z")
        }
        return date
    }

    /// A non-negative number of seconds (decimals allowed).
    static func seconds(_ setting: Setting) throws -> TimeInterval {
        guard let value = Double(setting.value), value.isFinite, value >= 0 else {
            throw UsageError(
                "\(setting.source): '\(setting.value)' is not a number of seconds; expected a number such as 3600")
        }
        return value
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
