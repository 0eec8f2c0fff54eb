import Foundation

/// The cache's file format: magic, format number, reader version, store, entries, then a checksum of
/// everything before it. Dates are stored as their exact `Double`, so a cached record
/// equals the parsed one bit for bit.
extension ParseCache {
    static let magic: [UInt8] = Array("AGGCACHE".utf8)
    static let format: UInt32 = 2

    func encode() -> Data {
        var out = BinaryWriter(capacity: 4096 + entries.count * 1024)
        out.raw(ParseCache.magic)
        out.u32(ParseCache.format)
        out.string(readerVersion)
        out.string(store)
        out.u32(UInt32(entries.count))
        // Any order: the reader builds a dictionary.
        for (name, entry) in entries {
            out.string(name)
            out.version(entry.version)
            switch entry.outcome {
            case .success(let record):
                out.u8(0)
                out.snapshot(record.snapshot)
                out.u32(UInt32(record.notes.count))
                for note in record.notes { out.string(note) }
            case .failure(let problem):
                out.u8(1)
                out.string(problem.reason)
            }
        }
        out.u64(out.checksum)
        return out.data
    }

    static func decode(_ data: Data, store: String, readerVersion: String) throws -> ParseCache {
        try data.withUnsafeBytes { buffer in
            guard buffer.count >= 8 + 8 else { throw BinaryReader.Corrupt() }
            // The checksum first: nothing is trusted from a file that does not add up.
            let body = UnsafeRawBufferPointer(rebasing: buffer[0..<(buffer.count - 8)])
            var tail = BinaryReader(UnsafeRawBufferPointer(rebasing: buffer[(buffer.count - 8)...]))
            guard try tail.u64() == BinaryWriter.checksum(body) else { throw BinaryReader.Corrupt() }

            var input = BinaryReader(body)
            guard try input.raw(ParseCache.magic.count) == ParseCache.magic, try input.u32() == ParseCache.format,
                try input.string() == readerVersion, try input.string() == store
            else { throw BinaryReader.Corrupt() }
            var cache = ParseCache(store: store, readerVersion: readerVersion)
            let count = Int(try input.u32())
            cache.entries.reserveCapacity(min(count, 1 << 20))
            for _ in 0..<count {
                let name = try input.string()
                let version = try input.version()
                switch try input.u8() {
                case 0:
                    let snapshot = try input.snapshot()
                    let notes = try (0..<Int(try input.u32())).map { _ in try input.string() }
                    cache.entries[name] = Entry(
                        version: version, outcome: .success(DecodedRecord(snapshot: snapshot, notes: notes)))
                case 1:
                    cache.entries[name] = Entry(
                        version: version, outcome: .failure(RecordProblem(file: name, reason: try input.string())))
                default:
                    throw BinaryReader.Corrupt()
                }
            }
            guard input.isAtEnd else { throw BinaryReader.Corrupt() }
            return cache
        }
    }
}

/// Little-endian binary output into a growable buffer, with a checksum over what was written.
struct BinaryWriter {
    static let fnv1aOffset: UInt64 = 0xcbf2_9ce4_8422_2325
    static let fnv1aPrime: UInt64 = 0x0000_0100_0000_01b3

    private var storage: Storage

    init(capacity: Int = 4096) {
        storage = Storage(capacity: capacity)
    }

    /// The buffer; a class so that copies of the writer share it (writers are used as values).
    private final class Storage {
        var start: UnsafeMutableRawPointer
        var count = 0
        var capacity: Int

        init(capacity: Int) {
            self.capacity = max(capacity, 64)
            start = .allocate(byteCount: self.capacity, alignment: 8)
        }

        deinit {
            start.deallocate()
        }

        func reserve(_ extra: Int) {
            guard count + extra > capacity else { return }
            capacity = max(capacity * 2, count + extra)
            let larger = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
            larger.copyMemory(from: start, byteCount: count)
            start.deallocate()
            start = larger
        }
    }

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage.start, count: storage.count) }
    var data: Data { Data(bytes) }
    var checksum: UInt64 { BinaryWriter.checksum(bytes) }

    /// Four independent lanes of multiply-and-shift over 32-byte blocks: for spotting a damaged file (not
    /// an attacker) at memory speed, where a byte-at-a-time hash was a measurable part of a cold run.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        var lanes: (UInt64, UInt64, UInt64, UInt64) = (1, 2, 3, 4)
        @inline(__always) func mix(_ lane: UInt64, _ word: UInt64) -> UInt64 {
            let product = (lane ^ word) &* multiplier
            return product ^ (product >> 29)
        }
        var offset = 0
        while offset + 32 <= bytes.count {
            lanes.0 = mix(lanes.0, bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            lanes.1 = mix(lanes.1, bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
            lanes.2 = mix(lanes.2, bytes.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self))
            lanes.3 = mix(lanes.3, bytes.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self))
            offset += 32
        }
        while offset < bytes.count {
            lanes.0 = mix(lanes.0, UInt64(bytes[offset]))
            offset += 1
        }
        return mix(mix(mix(mix(UInt64(bytes.count), lanes.0), lanes.1), lanes.2), lanes.3)
    }

    private mutating func append(_ source: UnsafeRawPointer, _ count: Int) {
        storage.reserve(count)
        (storage.start + storage.count).copyMemory(from: source, byteCount: count)
        storage.count += count
    }

    mutating func raw(_ values: [UInt8]) { values.withUnsafeBytes { append($0.baseAddress!, $0.count) } }
    mutating func u8(_ value: UInt8) { withUnsafeBytes(of: value) { append($0.baseAddress!, 1) } }
    mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { append($0.baseAddress!, 4) } }
    mutating func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { append($0.baseAddress!, 8) } }
    mutating func int(_ value: Int) { u64(UInt64(bitPattern: Int64(value))) }
    mutating func double(_ value: Double) { u64(value.bitPattern) }
    mutating func date(_ value: Date) { double(value.timeIntervalSinceReferenceDate) }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            u32(UInt32(utf8.count))
            if let base = utf8.baseAddress { append(base, utf8.count) }
        }
    }

    mutating func optional<Value>(_ value: Value?, _ write: (inout BinaryWriter, Value) -> Void) {
        if let value {
            u8(1)
            write(&self, value)
        } else {
            u8(0)
        }
    }

    mutating func version(_ version: RecordVersion) {
        switch version {
        case .file(let size, let modified, let changed, let inode):
            u8(0)
            u64(UInt64(bitPattern: size))
            u64(UInt64(bitPattern: modified))
            u64(UInt64(bitPattern: changed))
            u64(inode)
        case .tag(let tag):
            u8(1)
            string(tag)
        }
    }

    mutating func window(_ window: UsageWindow) {
        double(window.usedPercent)
        optional(window.windowMinutes) { $0.int($1) }
        optional(window.resetsAt) { $0.date($1) }
    }

    mutating func snapshot(_ snapshot: DeviceSnapshot) {
        int(snapshot.schemaVersion)
        string(snapshot.deviceID.rawValue)
        string(snapshot.deviceName)
        optional(snapshot.appVersion) { $0.string($1) }
        date(snapshot.generatedAt)
        u32(UInt32(snapshot.providers.count))
        for provider in snapshot.providers {
            string(provider.providerID)
            optional(provider.accountEmail) { $0.string($1) }
            optional(provider.plan) { $0.string($1) }
            date(provider.lastUpdated)
            optional(provider.session) { $0.window($1) }
            optional(provider.weekly) { $0.window($1) }
            optional(provider.modelWeekly) { out, models in
                out.u32(UInt32(models.count))
                for model in models {
                    out.string(model.name)
                    out.window(model.window)
                }
            }
            // Only what a merge keeps: the history (daily entries, samples) is never cached.
            optional(provider.tokens) { out, tokens in
                out.optional(tokens.today) { $0.int($1) }
                out.optional(tokens.last30Days) { $0.int($1) }
            }
            optional(provider.costUSD) { out, cost in
                out.optional(cost.today) { $0.double($1) }
                out.optional(cost.last30Days) { $0.double($1) }
            }
            optional(provider.error) { $0.string($1) }
        }
    }
}

/// Reads what `BinaryWriter` wrote; every read is bounds-checked and throws on a short or bad file.
struct BinaryReader {
    struct Corrupt: Error {}

    private let buffer: UnsafeRawBufferPointer
    private var offset = 0

    init(_ buffer: UnsafeRawBufferPointer) {
        self.buffer = buffer
    }

    var isAtEnd: Bool { offset == buffer.count }

    private mutating func take(_ count: Int) throws -> UnsafeRawBufferPointer {
        guard count >= 0, count <= buffer.count - offset else { throw Corrupt() }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + count)])
    }

    mutating func raw(_ count: Int) throws -> [UInt8] { Array(try take(count)) }
    mutating func u8() throws -> UInt8 { try take(1)[0] }
    mutating func u32() throws -> UInt32 { UInt32(littleEndian: try take(4).loadUnaligned(as: UInt32.self)) }
    mutating func u64() throws -> UInt64 { UInt64(littleEndian: try take(8).loadUnaligned(as: UInt64.self)) }
    mutating func int() throws -> Int { Int(Int64(bitPattern: try u64())) }
    mutating func double() throws -> Double { Double(bitPattern: try u64()) }
    mutating func date() throws -> Date { Date(timeIntervalSinceReferenceDate: try double()) }

    /// The file's checksum already vouches for its bytes; decoding repairs anything odd instead of
    /// validating every string a second time.
    mutating func string() throws -> String {
        String(decoding: try take(Int(try u32())), as: UTF8.self)
    }

    mutating func version() throws -> RecordVersion {
        switch try u8() {
        case 0:
            return .file(
                size: Int64(bitPattern: try u64()), modified: Int64(bitPattern: try u64()),
                changed: Int64(bitPattern: try u64()), inode: try u64())
        case 1:
            return .tag(try string())
        default:
            throw Corrupt()
        }
    }

    mutating func optional<Value>(_ read: (inout BinaryReader) throws -> Value) throws -> Value? {
        switch try u8() {
        case 0: return nil
        case 1: return try read(&self)
        default: throw Corrupt()
        }
    }

    mutating func window() throws -> UsageWindow {
        UsageWindow(
            usedPercent: try double(), windowMinutes: try optional { try $0.int() },
            resetsAt: try optional { try $0.date() })
    }

    mutating func snapshot() throws -> DeviceSnapshot {
        let schemaVersion = try int()
        guard let deviceID = DeviceID(rawValue: try string()) else { throw Corrupt() }
        let deviceName = try string()
        let appVersion = try optional { try $0.string() }
        let generatedAt = try date()
        let providerCount = Int(try u32())
        var providers: [ProviderUsage] = []
        providers.reserveCapacity(min(providerCount, 1024))
        for _ in 0..<providerCount {
            let providerID = try string()
            let accountEmail = try optional { try $0.string() }
            let plan = try optional { try $0.string() }
            let lastUpdated = try date()
            let session = try optional { try $0.window() }
            let weekly = try optional { try $0.window() }
            let modelWeekly = try optional { reader in
                try (0..<Int(try reader.u32())).map { _ in
                    NamedWindow(name: try reader.string(), window: try reader.window())
                }
            }
            let tokens = try optional { reader in
                TokenUsage(
                    today: try reader.optional { try $0.int() }, last30Days: try reader.optional { try $0.int() })
            }
            let cost = try optional { reader in
                CostUsage(
                    today: try reader.optional { try $0.double() }, last30Days: try reader.optional { try $0.double() })
            }
            let error = try optional { try $0.string() }
            providers.append(
                ProviderUsage(
                    providerID: providerID, accountEmail: accountEmail, plan: plan, lastUpdated: lastUpdated,
                    session: session, weekly: weekly, modelWeekly: modelWeekly, tokens: tokens, costUSD: cost,
                    error: error))
        }
        return DeviceSnapshot(
            schemaVersion: schemaVersion, deviceID: deviceID, deviceName: deviceName, appVersion: appVersion,
            generatedAt: generatedAt, providers: providers)
    }
}
