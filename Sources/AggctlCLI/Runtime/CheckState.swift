import Aggregator
import Notify
import Portable
import Snapshots

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
        // Every release wrote both: a document without them (`{}`) is no state, and taken for an empty
        // one it fired again every event already delivered.
        let version = try container.decode(Int.self, forKey: .schemaVersion)
        guard version >= 1 else {
            throw DecodingError.dataCorruptedError(
                forKey: .schemaVersion, in: container, debugDescription: "schemaVersion \(version)")
        }
        alerts.accounts = try container.decode([String: AccountAlertState].self, forKey: .accounts)
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

extension CheckState {
    /// The events queued in a state file that is not valid state as a whole, when its outbox still reads:
    /// set aside, the file must not take undelivered events with it.
    static func salvagedOutbox(from data: Data) -> Outbox? {
        struct OutboxOnly: Decodable {
            var outbox: Outbox?
        }
        guard let document = try? SnapshotCodec.makeDecoder().decode(OutboxOnly.self, from: data) else { return nil }
        return document.outbox ?? Outbox()
    }
}

extension CheckState {
    /// The state read straight from its bytes when it has the shape aggctl writes with nothing queued
    /// (an empty outbox: queued events are rare, and Notify's to read); nil otherwise, and then
    /// Foundation's decoder reads it (`StateReader`).
    static func quickly(from bytes: UnsafeRawBufferPointer) -> CheckState? {
        var s = JSONScanner(bytes)
        var state = CheckState()
        var version: Int?
        var accounts: [String: AccountAlertState]?
        var paceAlerted: [String: Date]?
        var outbox: Bool?
        do {
            try StateReader.members(&s) { (s, key) throws(StateReader.Unusual) in
                if s.key(key, is: "schemaVersion") {
                    try StateReader.once(&version, try StateReader.int(&s))
                } else if s.key(key, is: "accounts") {
                    try StateReader.once(&accounts, try StateReader.accounts(&s))
                } else if s.key(key, is: "paceAlerted") {
                    try StateReader.once(&paceAlerted, try StateReader.paceAlerted(&s))
                } else if s.key(key, is: "outbox") {
                    // Only an empty one: any element gives up, for queued events are Notify's to read.
                    _ = try StateReader.array(&s) { (_) throws(StateReader.Unusual) -> Void in
                        throw StateReader.Unusual()
                    }
                    try StateReader.once(&outbox, true)
                } else {
                    try StateReader.skip(&s)
                }
            }
            try StateReader.syntax { () throws(JSONSyntaxError) in try s.finish() }
        } catch {
            return nil
        }
        guard let version, version >= 1, let accounts else { return nil }
        state.alerts.accounts = accounts
        state.alerts.paceAlerted = paceAlerted ?? [:]
        return state
    }
}

extension CheckState {
    /// The state as `JSONEncoder` writes it (`SnapshotCodec.makeEncoder(pretty: false)`: compact, keys
    /// sorted), the accounts written directly: encoding a thousand accounts' state took `JSONEncoder`
    /// 60 ms, and a `check` writes it whenever an account moved. Queued events are few, and Notify's:
    /// `JSONEncoder` writes those, in their place. Nil when a figure is not finite (which `JSONEncoder`
    /// refuses, and then says why) or the events cannot be encoded.
    func quicklyEncoded() -> Data? {
        guard let queued = try? SnapshotCodec.makeEncoder(pretty: false).encode(outbox) else { return nil }
        let accounts = alerts.accounts
        for state in accounts.values {
            guard state.remainingPercent.isFinite, state.heldRestore?.remainingPercent.isFinite ?? true else {
                return nil
            }
        }
        var json = JSONWriter(capacity: 1024 + accounts.count * 160)
        json.object { json in
            json.key("accounts")
            json.dictionary(accounts) { json, state in
                json.object { json in
                    if let absentSince = state.absentSince {
                        json.key("absentSince")
                        json.date(absentSince)
                    }
                    json.key("armedWarnings")
                    json.array(state.armedWarnings) { json, threshold in json.int(threshold) }
                    if let held = state.heldRestore {
                        json.key("heldRestore")
                        json.object { json in
                            Self.figures(held.lastUpdated, held.remainingPercent, held.resetsAt, to: &json)
                        }
                    }
                    Self.figures(state.lastUpdated, state.remainingPercent, state.resetsAt, to: &json)
                    if let window = state.window {
                        json.key("window")
                        json.string(window)
                    }
                }
            }
            json.key("outbox")
            queued.withUnsafeBytes { json.encoded($0) }
            json.key("paceAlerted")
            json.dictionary(alerts.paceAlerted) { json, resetsAt in json.date(resetsAt) }
            json.key("schemaVersion")
            json.int(1)
        }
        return json.data
    }

    /// The members an account's state and a held restore share, in their sorted places.
    private static func figures(
        _ lastUpdated: Date, _ remainingPercent: Double, _ resetsAt: Date?, to json: inout JSONWriter
    ) {
        json.key("lastUpdated")
        json.date(lastUpdated)
        json.key("remainingPercent")
        json.double(remainingPercent)
        if let resetsAt {
            json.key("resetsAt")
            json.date(resetsAt)
        }
    }
}
