import Foundation
import HTTP
import Snapshots

/// Conversions of flag values into typed options; each failure names the flag and the accepted form.
enum ValueParsers {
    static func date(_ text: String, flag: String) throws -> Date {
        guard let date = RFC3339.parse(text) else {
            throw UsageError("--\(flag): '\(text)' is not a date; expected RFC 3339 such as 2026-11-30T12:00:00Z")
        }
        return date
    }

    /// A non-negative number of seconds (decimals allowed).
    static func seconds(_ text: String, flag: String) throws -> TimeInterval {
        guard let value = Double(text), value.isFinite, value >= 0 else {
            throw UsageError("--\(flag): '\(text)' is not a number of seconds; expected a number such as 3600")
        }
        return value
    }

    static func deviceID(_ text: String, flag: String) throws -> DeviceID {
        if let problem = DeviceID.problem(with: text) {
            throw UsageError("--\(flag): '\(text)' is not a valid device id: \(problem)")
        }
        return DeviceID(rawValue: text)!
    }

    /// A `--store` value; `source` names where it came from (`--store`, `AGGCTL_STORE`, the config file).
    static func store(_ text: String, source: String) throws -> StoreLocation {
        do {
            return try StoreLocation.parse(text)
        } catch {
            throw UsageError(
                "\(source): '\(HTTPRequest.displayURL(text))' \(error.reason); expected a folder path, file:// URL, "
                    + "or http(s):// WebDAV URL")
        }
    }
}
