import Portable

/// A record as compact, canonical JSON: byte for byte what `JSONEncoder` writes with sorted keys and
/// unescaped slashes (`SnapshotCodecTests` holds the two together on random and hostile records), but
/// without Codable's generic machinery, whose container types are instantiated on first use in every
/// process: a Codex `publish` with nothing new went from 18.0 to 16.8 M instructions.
///
/// Keys are written in the byte order `JSONEncoder` sorts them in, optional members that are nil are
/// left out, dates are RFC 3339 texts (`RFC3339.format`), and a number that is not finite fails the
/// write as it fails `JSONEncoder`'s.
struct RecordJSON {
    private(set) var bytes: [UInt8] = []
    /// Whether the innermost open object or array has a member yet; `outer`, the same of the ones
    /// around it, innermost last.
    private var hasMember = false
    private var outer: [Bool] = []

    init(capacity: Int = 4096) {
        bytes.reserveCapacity(capacity)
    }

    mutating func snapshot(_ snapshot: DeviceSnapshot) throws {
        try object { json in
            if let appVersion = snapshot.appVersion { json.string("appVersion", appVersion) }
            json.string("deviceID", snapshot.deviceID.rawValue)
            json.string("deviceName", snapshot.deviceName)
            json.date("generatedAt", snapshot.generatedAt)
            try json.array("providers", snapshot.providers) { try $0.provider($1) }
            json.integer("schemaVersion", snapshot.schemaVersion)
        }
    }

    private mutating func provider(_ usage: ProviderUsage) throws {
        try object { json in
            if let email = usage.accountEmail { json.string("accountEmail", email) }
            if let cost = usage.costUSD {
                try json.object("costUSD") { json in
                    if let last30Days = cost.last30Days { try json.double("last30Days", last30Days) }
                    if let today = cost.today { try json.double("today", today) }
                }
            }
            if let error = usage.error { json.string("error", error) }
            json.date("lastUpdated", usage.lastUpdated)
            if let models = usage.modelWeekly {
                try json.array("modelWeekly", models) { json, model in
                    try json.object { json in
                        json.string("name", model.name)
                        try json.window("window", model.window)
                    }
                }
            }
            if let plan = usage.plan { json.string("plan", plan) }
            json.string("providerID", usage.providerID)
            if let session = usage.session { try json.window("session", session) }
            if let samples = usage.sessionSamples { try json.samples("sessionSamples", samples) }
            if let tokens = usage.tokens {
                try json.object("tokens") { json in
                    if let daily = tokens.daily {
                        try json.array("daily", daily) { json, day in
                            try json.object { json in
                                if let cost = day.costUSD { try json.double("costUSD", cost) }
                                json.string("date", day.date)
                                json.integer("tokens", day.tokens)
                            }
                        }
                    }
                    if let last30Days = tokens.last30Days { json.integer("last30Days", last30Days) }
                    if let today = tokens.today { json.integer("today", today) }
                }
            }
            if let weekly = usage.weekly { try json.window("weekly", weekly) }
            if let samples = usage.weeklySamples { try json.samples("weeklySamples", samples) }
        }
    }

    private mutating func window(_ key: StaticString, _ window: UsageWindow) throws {
        try object(key) { json in
            if let resetsAt = window.resetsAt { json.date("resetsAt", resetsAt) }
            try json.double("usedPercent", window.usedPercent)
            if let minutes = window.windowMinutes { json.integer("windowMinutes", minutes) }
        }
    }

    private mutating func samples(_ key: StaticString, _ samples: [UsageSample]) throws {
        try array(key, samples) { json, sample in
            try json.object { json in
                json.date("at", sample.at)
                if let resetsAt = sample.resetsAt { json.date("resetsAt", resetsAt) }
                try json.double("usedPercent", sample.usedPercent)
            }
        }
    }

    // MARK: Members and values

    /// A comma before every member but the first, and `"key":` when it has one.
    private mutating func begin(_ key: StaticString?) {
        if hasMember { bytes.append(UInt8(ascii: ",")) }
        hasMember = true
        guard let key else { return }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }

    private mutating func object(_ key: StaticString? = nil, _ members: (inout RecordJSON) throws -> Void) throws {
        begin(key)
        bytes.append(UInt8(ascii: "{"))
        outer.append(hasMember)
        hasMember = false
        try members(&self)
        hasMember = outer.removeLast()
        bytes.append(UInt8(ascii: "}"))
    }

    private mutating func array<Element>(
        _ key: StaticString, _ elements: [Element], _ write: (inout RecordJSON, Element) throws -> Void
    ) throws {
        begin(key)
        bytes.append(UInt8(ascii: "["))
        outer.append(hasMember)
        hasMember = false
        for element in elements { try write(&self, element) }
        hasMember = outer.removeLast()
        bytes.append(UInt8(ascii: "]"))
    }

    private mutating func integer(_ key: StaticString, _ value: Int) {
        begin(key)
        bytes.append(contentsOf: String(value).utf8)
    }

    /// Swift's shortest round-tripping text without a final `.0`: how `JSONEncoder` writes a `Double`.
    private mutating func double(_ key: StaticString, _ value: Double) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(codingPath: [], debugDescription: "Unable to encode \(value) directly in JSON."))
        }
        begin(key)
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    private mutating func date(_ key: StaticString, _ value: Date) {
        string(key, RFC3339.format(value))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Quotes and backslashes escaped, control characters as `\b`, `\t`, `\n`, `\f`, `\r` or `\u00xx`;
    /// everything else (slashes, DEL, all of Unicode) as it is.
    private mutating func string(_ key: StaticString, _ value: String) {
        begin(key)
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), byte])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0..<0x20:
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
