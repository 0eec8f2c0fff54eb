import Foundation
import Snapshots

/// What makes two provider entries the same account: provider plus normalised e-mail.
///
/// An entry without an e-mail cannot be proven to be the same account as any other, so its key carries
/// its device: it is merged only with itself.
public struct AccountKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var providerID: String
    /// Trimmed and lowercased; nil when the entry has no e-mail.
    public var normalizedEmail: String?
    /// Set only when `normalizedEmail` is nil.
    public var deviceID: DeviceID?

    public init(providerID: String, accountEmail: String?, deviceID: DeviceID) {
        self.providerID = providerID
        let email = accountEmail?.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() ?? ""
        if email.isEmpty {
            normalizedEmail = nil
            self.deviceID = deviceID
        } else {
            normalizedEmail = email
            self.deviceID = nil
        }
    }

    public init(_ entry: ProviderUsage, on deviceID: DeviceID) {
        self.init(providerID: entry.providerID, accountEmail: entry.accountEmail, deviceID: deviceID)
    }

    /// A stable text form, e.g. `claude:you@example.com` or `codex:@laptop-1`; used as an id in state files.
    public var description: String {
        if let email = normalizedEmail { return "\(providerID):\(email)" }
        return "\(providerID):@\(deviceID?.rawValue ?? "")"
    }

    /// The order of `status`: provider, then e-mail (keys without one last), then device.
    public static func < (lhs: AccountKey, rhs: AccountKey) -> Bool {
        if lhs.providerID != rhs.providerID {
            return lhs.providerID.utf8.lexicographicallyPrecedes(rhs.providerID.utf8)
        }
        switch (lhs.normalizedEmail, rhs.normalizedEmail) {
        case (let l?, let r?) where l != r: return l.utf8.lexicographicallyPrecedes(r.utf8)
        case (nil, _?): return false
        case (_?, nil): return true
        default: break
        }
        return (lhs.deviceID?.rawValue ?? "").utf8.lexicographicallyPrecedes((rhs.deviceID?.rawValue ?? "").utf8)
    }
}
