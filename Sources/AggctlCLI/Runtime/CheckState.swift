import Aggregator
import Notify
import Portable

/// What `check` keeps in `alerts.json`: the alert state (Aggregator's) and the outbox (Notify's), one
/// document written under one lock, so that exactly-once holds across both.
///
/// The shape is the one every release has written: `{"schemaVersion": 1, "accounts": {...}, "outbox":
/// [...]}`, since `--warn-pace` with `"paceAlerted": {...}` (older files have none: nothing fired yet).
struct CheckState: Codable, Sendable, Equatable {
    var alerts = AlertState()
    var outbox = Outbox()

    init() {}

    enum CodingKeys: String, CodingKey {
        case schemaVersion, accounts, outbox, paceAlerted
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try container.decodeIfPresent(Int.self, forKey: .schemaVersion) ?? 1
        guard version >= 1 else {
            throw DecodingError.dataCorruptedError(
                forKey: .schemaVersion, in: container, debugDescription: "schemaVersion \(version)")
        }
        alerts.accounts = try container.decodeIfPresent([String: AccountAlertState].self, forKey: .accounts) ?? [:]
        outbox = try container.decodeIfPresent(Outbox.self, forKey: .outbox) ?? Outbox()
        alerts.paceAlerted = try container.decodeIfPresent([String: Date].self, forKey: .paceAlerted) ?? [:]
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(1, forKey: .schemaVersion)
        try container.encode(alerts.accounts, forKey: .accounts)
        try container.encode(outbox, forKey: .outbox)
        try container.encode(alerts.paceAlerted, forKey: .paceAlerted)
    }
}
