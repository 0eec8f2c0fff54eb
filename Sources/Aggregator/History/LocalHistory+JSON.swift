import Portable
import Serialization
import Snapshots

/// `history.json`'s writer, beside its reader (`LocalHistory+StateReader`).
extension LocalHistory {
    /// The history as `JSONEncoder` writes it (`RecordCodec.makeEncoder(pretty: false)`), written
    /// directly: two weeks of samples of two accounts took `JSONEncoder` a third of a `publish`, which
    /// writes them on every run. Nil when a figure is not finite (which `JSONEncoder` refuses, and then
    /// says why).
    public func encoded() throws -> Data {
        if let data = quicklyEncoded() { return data }
        return try RecordCodec.makeEncoder(pretty: false).encode(self)
    }

    public func quicklyEncoded() -> Data? {
        let windows = accounts.values
        guard windows.allSatisfy({ ($0.session + $0.weekly).allSatisfy { $0.usedPercent.isFinite } }) else {
            return nil
        }
        var json = JSONWriter<Never>(
            capacity: 1024 + windows.reduce(0) { $0 + ($1.session.count + $1.weekly.count) * 90 })
        json.object { json in
            json.key("accounts")
            json.dictionary(accounts) { json, history in
                json.object { json in
                    json.key("session")
                    Self.write(history.session, to: &json)
                    json.key("weekly")
                    Self.write(history.weekly, to: &json)
                }
            }
        }
        return json.data
    }

    private static func write(_ samples: [UsageSample], to json: inout JSONWriter<Never>) {
        json.array(count: samples.count) { json, index in
            json.object { json in
                json.key("at")
                json.date(samples[index].at)
                if let resetsAt = samples[index].resetsAt {
                    json.key("resetsAt")
                    json.date(resetsAt)
                }
                json.key("usedPercent")
                json.double(samples[index].usedPercent)
            }
        }
    }
}
