import Portable
import Serialization

/// One member of a `SchemaObject`: its key, the stored property that holds it, and when it is read and
/// kept.
///
/// The property is reached by its offset in the type (`MemoryLayout.offset(of:)`, which is defined for
/// stored properties), from the address of the object `Schema` holds while it reads or writes it, and
/// the codings below are handed the property's own address and capture nothing. Through the key path at
/// each use, with a copy of the object for each member and a closure context to retain, the first version
/// made a cold merge of 1000 records 1.4 times as slow.
struct SchemaField<Owner>: Sendable {
    enum Role: Sendable {
        /// In the record, read always, kept in the caches.
        case stored
        /// In the record, read only by a reader that keeps history (`HistoryDetail.full`), never kept in
        /// the caches; `summary` is what a reader of trends keeps of it instead.
        case history(summary: (@Sendable (inout JSONScanner, inout Owner) throws(FastRecordDecoder.Failure) -> Void)?)
        /// Not in the record: worked out while reading it, and kept in the caches.
        case derived
    }

    let key: StaticString
    let role: Role
    let isRequired: Bool
    /// A member of the wrong shape is left out with a note (`JSONScanner.readerNotes`) instead of failing the
    /// object: one broken window or limit must not cost the entry its other figures.
    var isDroppable = false
    /// Where the property lies in `Owner`.
    let offset: Int
    // Each given the property's address.
    let read:
        @Sendable (inout JSONScanner, UnsafeMutableRawPointer, HistoryDetail) throws(FastRecordDecoder.Failure) -> Void
    let isNil: @Sendable (UnsafeRawPointer) -> Bool
    let write: @Sendable (inout RecordJSON, UnsafeRawPointer) throws -> Void
    let keep: @Sendable (inout BinaryWriter, UnsafeRawPointer) -> Void
    let restore: @Sendable (inout BinaryReader, UnsafeMutableRawPointer) throws -> Void

    var isInRecord: Bool {
        if case .derived = role { return false }
        return true
    }

    /// A member of the record, kept in the caches.
    static func field<Value: SchemaValue>(_ key: StaticString, _ path: WritableKeyPath<Owner, Value> & Sendable) -> Self
    {
        SchemaField(key, path, role: .stored)
    }

    /// A member of the record, kept in the caches, left out with a note when its value has the wrong shape.
    static func droppable<Value: SchemaValue>(
        _ key: StaticString, _ path: WritableKeyPath<Owner, Value?> & Sendable
    ) -> Self {
        var field = SchemaField(key, path, role: .stored)
        field.isDroppable = true
        return field
    }

    /// A list member whose elements are each left out with a note when of the wrong shape (a limit with a
    /// length of 1e20 goes, the entry's other limits stay); a list that is not a list goes whole.
    static func droppingElements<Element: SchemaValue>(
        _ key: StaticString, _ path: WritableKeyPath<Owner, [Element]?> & Sendable
    ) -> Self {
        var field = SchemaField(
            key: key, role: .stored, isRequired: false, offset: offset(of: path),
            read: { s, property, history throws(FastRecordDecoder.Failure) in
                if try FastRecordDecoder.kind(&s) == .null {
                    property.assumingMemoryBound(to: [Element]?.self).pointee = try FastRecordDecoder.null(&s)
                    return
                }
                var kept: [Element] = []
                try FastRecordDecoder.array(&s) { (s, index) throws(FastRecordDecoder.Failure) in
                    let mark = (index: s.index, depth: s.depth)
                    do throws(FastRecordDecoder.Failure) {
                        kept.append(try Element.read(&s, history))
                    } catch let failure {
                        guard case .schema(let error) = failure else { throw failure }
                        s.index = mark.index
                        s.depth = mark.depth
                        try FastRecordDecoder.skip(&s)
                        s.readerNotes.append(
                            FastRecordDecoder.DroppedValue(
                                error: error.prefixed(.index(index)).prefixed(.key("\(key)")), named: 2))
                    }
                }
                property.assumingMemoryBound(to: [Element]?.self).pointee = kept.isEmpty ? nil : kept
            },
            isNil: { property in property.assumingMemoryBound(to: [Element]?.self).pointee == nil },
            write: { json, property in try property.assumingMemoryBound(to: [Element]?.self).pointee.write(to: &json) },
            keep: { out, property in property.assumingMemoryBound(to: [Element]?.self).pointee.keep(in: &out) },
            restore: { reader, property in
                property.assumingMemoryBound(to: [Element]?.self).pointee = try [Element]?.restore(from: &reader)
            })
        field.isDroppable = true
        return field
    }

    /// A member of the record's history: the bulk of a record, read only when asked for.
    static func history<Value: SchemaValue>(
        _ key: StaticString, _ path: WritableKeyPath<Owner, Value?> & Sendable,
        summary: (@Sendable (inout JSONScanner, inout Owner) throws(FastRecordDecoder.Failure) -> Void)? = nil
    ) -> Self {
        SchemaField(key, path, role: .history(summary: summary))
    }

    /// A value worked out from the record while reading it, not part of it; kept in the caches.
    static func derived<Value: KeptValue>(_ name: StaticString, _ path: WritableKeyPath<Owner, Value?> & Sendable)
        -> Self
    {
        SchemaField(
            key: name, role: .derived, isRequired: false, offset: offset(of: path),
            read: { s, _, _ throws(FastRecordDecoder.Failure) in try FastRecordDecoder.skip(&s) },
            isNil: { _ in true },
            write: { _, _ in },
            keep: { out, property in property.assumingMemoryBound(to: Value?.self).pointee.keep(in: &out) },
            restore: { reader, property in
                property.assumingMemoryBound(to: Value?.self).pointee = try Value?.restore(from: &reader)
            })
    }

    private init<Value: SchemaValue>(_ key: StaticString, _ path: WritableKeyPath<Owner, Value>, role: Role) {
        self.init(
            key: key, role: role, isRequired: !Value.isOptional, offset: Self.offset(of: path),
            read: { s, property, history throws(FastRecordDecoder.Failure) in
                property.assumingMemoryBound(to: Value.self).pointee = try Value.read(&s, history)
            },
            isNil: { property in property.assumingMemoryBound(to: Value.self).pointee.isNil },
            write: { json, property in try property.assumingMemoryBound(to: Value.self).pointee.write(to: &json) },
            keep: { out, property in property.assumingMemoryBound(to: Value.self).pointee.keep(in: &out) },
            restore: { reader, property in
                property.assumingMemoryBound(to: Value.self).pointee = try Value.restore(from: &reader)
            })
    }

    private init(
        key: StaticString, role: Role, isRequired: Bool, offset: Int,
        read:
            @escaping @Sendable (inout JSONScanner, UnsafeMutableRawPointer, HistoryDetail) throws(FastRecordDecoder
            .Failure) -> Void,
        isNil: @escaping @Sendable (UnsafeRawPointer) -> Bool,
        write: @escaping @Sendable (inout RecordJSON, UnsafeRawPointer) throws -> Void,
        keep: @escaping @Sendable (inout BinaryWriter, UnsafeRawPointer) -> Void,
        restore: @escaping @Sendable (inout BinaryReader, UnsafeMutableRawPointer) throws -> Void
    ) {
        self.key = key
        self.role = role
        self.isRequired = isRequired
        self.offset = offset
        self.read = read
        self.isNil = isNil
        self.write = write
        self.keep = keep
        self.restore = restore
    }

    private static func offset<Value>(of path: WritableKeyPath<Owner, Value>) -> Int {
        guard let offset = MemoryLayout<Owner>.offset(of: path) else {
            preconditionFailure("a schema names stored properties only")
        }
        return offset
    }
}
