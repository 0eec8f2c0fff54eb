import Portable
import Serialization
import Snapshots

/// `alerts.json`'s writer, beside its reader (`StateReader`): `check` keeps the alert state in its
/// delivery ledger, beside the outbox.
///
/// The state is written as `JSONEncoder` writes the ledger's document (`RecordCodec.makeEncoder(pretty:
/// false)`: compact, keys sorted), the accounts written directly: encoding a thousand accounts' state took
/// `JSONEncoder` 60 ms, and a `check` writes it whenever an account moved. Queued events are few:
/// `JSONEncoder` writes those, in their place. Nil when a figure is not finite (which `JSONEncoder`
/// refuses, and then says why).
extension AlertState {
    public func quicklyEncodedDocument(outbox queued: Data) -> Data? {
        let accounts = self.accounts
        for state in accounts.values {
            guard state.remainingPercent.isFinite, state.heldRestore?.remainingPercent.isFinite ?? true else {
                return nil
            }
        }
        var json = JSONWriter<Never>(capacity: 1024 + accounts.count * 160)
        let budgetsAlerted = self.budgetsAlerted
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
                    if let blocker = state.restoreHeldBy {
                        json.key("restoreHeldBy")
                        json.string(blocker)
                    }
                    if let window = state.window {
                        json.key("window")
                        json.string(window)
                    }
                }
            }
            if !budgetsAlerted.isEmpty {
                json.key("budgetsAlerted")
                json.dictionary(budgetsAlerted) { json, month in json.string(month) }
            }
            json.key("outbox")
            queued.withUnsafeBytes { json.encoded($0) }
            json.key("paceAlerted")
            json.dictionary(paceAlerted) { json, resetsAt in json.date(resetsAt) }
            json.key("schemaVersion")
            json.int(1)
        }
        return json.data
    }

    /// The members an account's state and a held restore share, in their sorted places.
    private static func figures(
        _ lastUpdated: Date, _ remainingPercent: Double, _ resetsAt: Date?, to json: inout JSONWriter<Never>
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
