import Portable
import Serialization

/// An object of the record format: its members are the lines of `schema`, in the order the type
/// declares its properties (which is the order problems are reported in when several members are wrong).
protocol SchemaObject: SchemaValue {
    static var schema: Schema<Self> { get }
    /// A value to read members into: a required member left out refuses the object, so the placeholders
    /// of required members are never seen.
    static var blank: Self { get }
}

/// A type's members, with what reading and writing ask of them worked out once.
struct Schema<Owner>: Sendable {
    let fields: [SchemaField<Owner>]
    /// Bit i set when member i is in the record / required / history (read only with `.full`).
    private let inRecord: UInt64
    private let required: UInt64
    private let history: UInt64
    /// The members in the byte order of their keys, as `JSONEncoder` sorts them.
    private let writeOrder: [Int]
    /// Where each key leads; nil only for a schema whose keys it cannot keep apart.
    private let keyTable: SchemaKeyTable?
    private let kept: [Int]

    init(_ fields: [SchemaField<Owner>]) {
        precondition(fields.count <= 64, "a reader marks the members it has seen in 64 bits")
        self.fields = fields
        var inRecord: UInt64 = 0
        var required: UInt64 = 0
        var history: UInt64 = 0
        for (index, field) in fields.enumerated() {
            let bit = UInt64(1) << UInt64(index)
            if field.isInRecord { inRecord |= bit }
            if field.isRequired && field.isInRecord { required |= bit }
            if case .history = field.role { history |= bit }
        }
        self.inRecord = inRecord
        self.required = required
        self.history = history
        writeOrder = fields.indices.filter { inRecord & (1 << UInt64($0)) != 0 }.sorted { a, b in
            let (x, y) = (fields[a].key, fields[b].key)
            let order = memcmp(x.utf8Start, y.utf8Start, min(x.utf8CodeUnitCount, y.utf8CodeUnitCount))
            return order != 0 ? order < 0 : x.utf8CodeUnitCount < y.utf8CodeUnitCount
        }
        kept = fields.indices.filter { history & (1 << UInt64($0)) == 0 }
        keyTable = SchemaKeyTable(keys: fields.map { $0.isInRecord ? $0.key : nil })
    }

    /// Whether keys are found in one look (`SchemaKeyTable`) rather than searched for.
    var findsKeysInOneLook: Bool { keyTable != nil }

    /// The member `key` names, or `fields.count` for none.
    @inline(__always)
    private func member(_ key: JSONScanner.RawString, in s: borrowing JSONScanner) -> Int {
        if !key.hasEscapes, let keyTable {
            guard let index = keyTable.candidate(s.base + key.start, key.end - key.start),
                s.key(key, is: fields[index].key)
            else { return fields.count }
            return index
        }
        // A key with escapes (or a schema without a table) is searched for, as the text it stands for.
        var index = 0
        while index < fields.count && (inRecord & (1 << UInt64(index)) == 0 || !s.key(key, is: fields[index].key)) {
            index += 1
        }
        return index
    }

    /// Reads an object member by member: unknown keys are skipped, the first occurrence of a key decides,
    /// and a member of the wrong shape is kept as a failure while the rest is read (so that the failure
    /// reported is the first in declaration order, missing members included).
    func read(
        _ s: inout JSONScanner, into object: UnsafeMutablePointer<Owner>, _ detail: HistoryDetail
    ) throws(FastRecordDecoder.Failure) {
        let address = UnsafeMutableRawPointer(object)
        switch try FastRecordDecoder.kind(&s) {
        case .object: break
        case .null: throw .schema(FastRecordDecoder.SchemaError(kind: .null))
        default: throw .schema(FastRecordDecoder.SchemaError(kind: .mismatch("an object")))
        }
        do { try s.enterObject() } catch { throw .syntax(error) }
        var seen: UInt64 = 0
        var failures: [(field: Int, error: FastRecordDecoder.SchemaError)] = []
        var first = true
        while true {
            let key: JSONScanner.RawString?
            do { key = try s.nextKey(&first) } catch { throw .syntax(error) }
            guard let key else { break }
            let index = member(key, in: s)
            let bit = UInt64(1) << UInt64(index)
            guard index < fields.count, seen & bit == 0 else {
                try FastRecordDecoder.skip(&s)
                continue
            }
            if history & bit != 0 && detail != .full {
                if detail == .trend, case .history(let summary?) = fields[index].role {
                    seen |= bit
                    try summary(&s, &object.pointee)
                } else {
                    try FastRecordDecoder.skip(&s)
                }
                continue
            }
            seen |= bit
            let mark = (index: s.index, depth: s.depth)
            do throws(FastRecordDecoder.Failure) {
                try fields[index].read(&s, address + fields[index].offset, detail)
            } catch let failure {
                guard case .schema(let error) = failure else { throw failure }
                s.index = mark.index
                s.depth = mark.depth
                try FastRecordDecoder.skip(&s)
                if fields[index].isDroppable {
                    // Left as the blank has it (nil), with a note: the object's other members stand.
                    s.readerNotes.append(
                        FastRecordDecoder.DroppedValue(error: error.prefixed(.key("\(fields[index].key)")), named: 1))
                } else {
                    failures.append((index, error.prefixed(.key("\(fields[index].key)"))))
                }
            }
        }
        guard !failures.isEmpty || required & ~seen != 0 else { return }
        for index in fields.indices {
            if let failure = failures.first(where: { $0.field == index }) { throw .schema(failure.error) }
            if required & (1 << UInt64(index)) != 0, seen & (1 << UInt64(index)) == 0 {
                throw .schema(FastRecordDecoder.SchemaError(kind: .missing("\(fields[index].key)")))
            }
        }
    }

    /// Members in the byte order of their keys, nil ones left out.
    func write(_ object: UnsafePointer<Owner>, to json: inout RecordJSON) throws {
        let address = UnsafeRawPointer(object)
        try json.object { json in
            for index in writeOrder where !fields[index].isNil(address + fields[index].offset) {
                json.member(fields[index].key)
                try fields[index].write(&json, address + fields[index].offset)
            }
        }
    }

    /// What a merge needs: every member but the history, and what was derived from it.
    func keep(_ object: UnsafePointer<Owner>, in out: inout BinaryWriter) {
        let address = UnsafeRawPointer(object)
        for index in kept { fields[index].keep(&out, address + fields[index].offset) }
    }

    func restore(from reader: inout BinaryReader, into object: UnsafeMutablePointer<Owner>) throws {
        let address = UnsafeMutableRawPointer(object)
        for index in kept { try fields[index].restore(&reader, address + fields[index].offset) }
    }
}

extension SchemaObject {
    static func read(_ s: inout JSONScanner, _ history: HistoryDetail) throws(FastRecordDecoder.Failure) -> Self {
        var value = blank
        try withUnsafeMutablePointer(to: &value) { (object) throws(FastRecordDecoder.Failure) in
            try schema.read(&s, into: object, history)
        }
        return value
    }

    func write(to json: inout RecordJSON) throws {
        try withUnsafePointer(to: self) { try Self.schema.write($0, to: &json) }
    }

    func keep(in out: inout BinaryWriter) {
        withUnsafePointer(to: self) { Self.schema.keep($0, in: &out) }
    }

    static func restore(from reader: inout BinaryReader) throws -> Self {
        var value = blank
        try withUnsafeMutablePointer(to: &value) { try schema.restore(from: &reader, into: $0) }
        return value
    }
}
