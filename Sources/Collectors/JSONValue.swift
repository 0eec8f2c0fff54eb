import Serialization
import Snapshots

/// A small JSON tree, for the few short lines a collector reads whole (one log event at a time).
enum JSONValue: Equatable {
    case object([String: JSONValue])
    case array([JSONValue])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    /// Parses one complete JSON document; nil when it is not valid JSON.
    static func parse(_ bytes: UnsafeRawBufferPointer) -> JSONValue? {
        var scanner = JSONScanner(bytes)
        guard let value = try? read(&scanner), (try? scanner.finish()) != nil else { return nil }
        return value
    }

    private static func read(_ s: inout JSONScanner) throws(JSONSyntaxError) -> JSONValue {
        switch try s.kind() {
        case .object:
            try s.enterObject()
            var members: [String: JSONValue] = [:]
            var first = true
            while let key = try s.nextKey(&first) {
                let name = s.string(key)
                let value = try read(&s)
                if members[name] == nil { members[name] = value }
            }
            return .object(members)
        case .array:
            try s.enterArray()
            var elements: [JSONValue] = []
            var first = true
            while try s.nextElement(&first) { elements.append(try read(&s)) }
            return .array(elements)
        case .string:
            let raw = try s.readRawString()  // apart, so that `s` is not copied to read the text
            return .string(s.string(raw))
        case .number:
            let raw = try s.readRawNumber()
            guard let value = s.double(raw) else { throw s.error }
            return .number(value)
        case .bool:
            return .bool(try s.readBool())
        case .null:
            _ = try s.readNull()
            return .null
        }
    }

    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    var number: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    var array: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }
}
