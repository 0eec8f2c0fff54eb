import Portable
import Serialization

/// A JSON object declared once: its members in the document's order, each a key and how its value is
/// written from the value the object stands for. `status --json` and `devices --json` are written from
/// such declarations (`StatusReport`), as records are read from a `Schema`: a new key is one line in
/// the declaration, and a test holds every declaration to the contract's rules (keys sorted, each once).
struct JSONShape<Value>: Sendable {
    let members: [JSONMember<Value>]

    init(_ members: [JSONMember<Value>]) {
        self.members = members
    }

    /// The keys in the order they are written.
    var keys: [String] { members.map { $0.key.description } }

    /// `value` as the declared object, judged at `now` (the document's moment: a pace depends on it).
    func write(_ value: Value, at now: Date, to json: inout StatusJSONWriter) {
        json.object { json in
            for member in members {
                json.key(member.key)
                member.write(&json, value, now)
            }
        }
    }

    /// `value` as the declared object, or `null` when there is none.
    func write(_ value: Value?, at now: Date, to json: inout StatusJSONWriter) {
        guard let value else { return json.null() }
        write(value, at: now, to: &json)
    }
}

/// One member of a declared object: its key and how its value is written (absent values as `null`).
struct JSONMember<Value>: Sendable {
    let key: StaticString
    let write: @Sendable (inout StatusJSONWriter, Value, Date) -> Void

    static func string(_ key: StaticString, _ value: @escaping @Sendable (Value) -> String?) -> Self {
        Self(key: key) { json, of, now in json.string(value(of)) }
    }

    static func int(_ key: StaticString, _ value: @escaping @Sendable (Value) -> Int?) -> Self {
        Self(key: key) { json, of, now in json.int(value(of)) }
    }

    static func double(_ key: StaticString, _ value: @escaping @Sendable (Value) -> Double?) -> Self {
        Self(key: key) { json, of, now in json.double(value(of)) }
    }

    static func bool(_ key: StaticString, _ value: @escaping @Sendable (Value) -> Bool) -> Self {
        Self(key: key) { json, of, now in json.bool(value(of)) }
    }

    static func date(_ key: StaticString, _ value: @escaping @Sendable (Value) -> Date?) -> Self {
        Self(key: key) { json, of, now in json.date(value(of)) }
    }

    /// A nested object declared by `shape`, or `null`.
    static func object<Inner>(
        _ key: StaticString, _ shape: JSONShape<Inner>, _ value: @escaping @Sendable (Value) -> Inner?
    ) -> Self {
        Self(key: key) { json, of, now in shape.write(value(of), at: now, to: &json) }
    }

    /// An array of objects declared by `shape`, or `null` when there is no array.
    static func array<Element>(
        _ key: StaticString, _ shape: JSONShape<Element>, _ elements: @escaping @Sendable (Value) -> [Element]?
    ) -> Self {
        Self(key: key) { json, of, now in
            guard let elements = elements(of) else { return json.null() }
            json.array(elements) { json, element in shape.write(element, at: now, to: &json) }
        }
    }

    /// A value written its own way, given the document's moment: one that depends on it (marked for the
    /// kept document), or a list of plain values.
    static func custom(
        _ key: StaticString, _ write: @escaping @Sendable (inout StatusJSONWriter, Value, Date) -> Void
    ) -> Self {
        Self(key: key, write: write)
    }
}
