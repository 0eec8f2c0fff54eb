import Portable
import Serialization

/// Reads stored records straight from their bytes, decoding exactly the schema's fields (the objects
/// by `SchemaObject.read`; here the scalars, the containers and the errors).
///
/// Gives the same records, notes and rejections as Foundation's `JSONDecoder` path in `RecordCodec`
/// (a differential test holds it to that), with two deliberate differences: it rejects malformed JSON
/// inside values it skips (Foundation accepts, for example, invalid UTF-8 or a trailing comma in an
/// unknown key), and its syntax errors name the byte where reading stopped. Fields are judged in the
/// order the model declares them, so when several are wrong the one reported is the one Foundation
/// reports.
public enum FastRecordDecoder {
    /// Decodes one record.
    ///
    /// - Parameter history: short of `.full`, the history in a record (samples and the per-day
    ///   `tokens.daily`) is validated as JSON but not kept: it is the bulk of a record, and most reports
    ///   need only the current windows and the `today`/`last30Days` totals (`.trend` keeps the weekly
    ///   samples' last week in a few numbers).
    /// - Parameter shapes: history shapes kept from records read before (one reader's, not shared).
    public static func decode(
        _ buffer: UnsafeRawBufferPointer, fileName: String, history: HistoryDetail = .full,
        shapes: JSONScanner.ShapeMemory? = nil
    ) throws(RecordDecodingError) -> DecodedRecord {
        var scanner = JSONScanner(buffer)
        scanner.shapeMemory = shapes
        let fields: RecordFields
        do throws(Failure) {
            fields = try RecordFields.read(&scanner, history)
            do { try scanner.finish() } catch { throw .syntax(error) }
        } catch let failure {
            switch failure {
            case .syntax(let error):
                throw RecordDecodingError(reason: error.reason)
            case .schema(let error):
                // Foundation reads the whole document before decoding, so a syntax error anywhere wins
                // over a schema error; check the rest before blaming the schema.
                var validator = JSONScanner(buffer)
                do throws(JSONSyntaxError) {
                    try validator.skipValue()
                    try validator.finish()
                } catch {
                    throw RecordDecodingError(reason: error.reason)
                }
                throw RecordDecodingError(reason: error.reason)
            }
        }
        return try (consume fields).validated(
            fileName: fileName, dropped: scanner.readerNotes.compactMap { ($0 as? DroppedValue)?.note })
    }

    // MARK: Errors

    enum Failure: Error {
        case syntax(JSONSyntaxError)
        case schema(SchemaError)
    }

    /// A value of the wrong shape, with the path to it from the value being decoded.
    struct SchemaError: Error {
        enum Kind {
            case missing(String)
            case null
            case mismatch(String)
            case badDate(String)
            case badNumber
            /// A valid JSON number too large for the field (Foundation calls it "not valid JSON").
            case outOfRange
        }

        var kind: Kind
        var path: [RecordCodec.PathComponent] = []

        func prefixed(_ component: RecordCodec.PathComponent) -> SchemaError {
            SchemaError(kind: kind, path: [component] + path)
        }

        /// The same words `RecordCodec.describe` gives Foundation's errors.
        var reason: String {
            let text = RecordCodec.render(path)
            let at = text.isEmpty ? "" : " at '\(text)'"
            switch kind {
            case .missing(let key): return "missing '\(key)'\(at)"
            case .null: return "'\(text)' is null"
            case .mismatch(let expected): return "'\(text)' is not \(expected)"
            case .badDate(let value): return "'\(RecordCodec.printable(value))' is not an RFC 3339 date\(at)"
            // Foundation says "not valid JSON" for both: the number is valid JSON, the field cannot hold it.
            case .badNumber: return "'\(text)' is not a whole number"
            case .outOfRange: return "'\(text)' is out of range"
            }
        }
    }

    /// A member left out for its shape (`SchemaField.isDroppable`): why, and how many leading steps of
    /// the error's path name the value left out (`limits[2]` of `limits[2].usedPercent`).
    struct DroppedValue: Sendable {
        var error: SchemaError
        var named: Int

        func prefixed(_ component: RecordCodec.PathComponent) -> DroppedValue {
            DroppedValue(error: error.prefixed(component), named: named + 1)
        }

        var note: String {
            RecordCodec.droppedNote(RecordCodec.render(Array(error.path.prefix(named))), reason: error.reason)
        }
    }

    static func skip(_ s: inout JSONScanner) throws(Failure) {
        do { try s.skipValue() } catch { throw .syntax(error) }
    }

    // MARK: Scalars

    @inline(__always)
    static func kind(_ s: inout JSONScanner) throws(Failure) -> JSONScanner.Kind {
        do { return try s.kind() } catch { throw .syntax(error) }
    }

    static func string(_ s: inout JSONScanner) throws(Failure) -> String {
        switch try kind(&s) {
        case .string:
            // The token first, then the text: `s.string(try s.readRawString())` copied the scanner to
            // call `string` on it (its shape memory retained and released for every string read).
            let raw: JSONScanner.RawString
            do { raw = try s.readRawString() } catch { throw .syntax(error) }
            return s.string(raw)
        case .null: throw .schema(SchemaError(kind: .null))
        default: throw .schema(SchemaError(kind: .mismatch("a string")))
        }
    }

    static func bool(_ s: inout JSONScanner) throws(Failure) -> Bool {
        switch try kind(&s) {
        case .bool:
            do { return try s.readBool() } catch { throw .syntax(error) }
        case .null: throw .schema(SchemaError(kind: .null))
        default: throw .schema(SchemaError(kind: .mismatch("a boolean")))
        }
    }

    static func double(_ s: inout JSONScanner) throws(Failure) -> Double {
        switch try kind(&s) {
        case .number:
            let raw: JSONScanner.RawNumber
            do { raw = try s.readRawNumber() } catch { throw .syntax(error) }
            guard let value = s.double(raw) else {
                // Too large (overflows to infinity) is out of range; too small to be told from zero is not
                // a number the schema can hold either, and says so as Foundation does.
                // (1e-400 is as out of range as 1e400.)
                throw .schema(SchemaError(kind: .outOfRange))
            }
            return value
        case .null: throw .schema(SchemaError(kind: .null))
        default: throw .schema(SchemaError(kind: .mismatch("a number")))
        }
    }

    static func int(_ s: inout JSONScanner) throws(Failure) -> Int {
        switch try kind(&s) {
        case .number:
            let raw: JSONScanner.RawNumber
            do { raw = try s.readRawNumber() } catch { throw .syntax(error) }
            guard let value = s.int(raw) else {
                // Past Int's range is out of range; a fraction (1.5) is not an integer at all.
                let tooLarge =
                    raw.isInteger
                    || (s.double(raw).map { abs($0) >= 9.223_372_036_854_775_808e18 }
                        ?? (raw.exponent + raw.digitCount > 0))
                throw .schema(SchemaError(kind: tooLarge ? .outOfRange : .badNumber))
            }
            return value
        case .null: throw .schema(SchemaError(kind: .null))
        default: throw .schema(SchemaError(kind: .mismatch("a number")))
        }
    }

    static func date(_ s: inout JSONScanner) throws(Failure) -> Date {
        switch try kind(&s) {
        case .string:
            let raw: JSONScanner.RawString
            do { raw = try s.readRawString() } catch { throw .syntax(error) }
            if !raw.hasEscapes,
                let date = RFC3339.parse(
                    bytes: UnsafeRawBufferPointer(start: s.base + raw.start, count: raw.end - raw.start))
            {
                return date
            }
            let text = s.string(raw)
            if raw.hasEscapes, let date = RFC3339.parse(text) { return date }
            throw .schema(SchemaError(kind: .badDate(text)))
        case .null: throw .schema(SchemaError(kind: .null))
        default: throw .schema(SchemaError(kind: .mismatch("a string")))
        }
    }

    /// Consumes a `null` (the cursor is on one) and returns nil of any optional type.
    static func null<Value>(_ s: inout JSONScanner) throws(Failure) -> Value? {
        do { _ = try s.readNull() } catch { throw .syntax(error) }
        return nil
    }

    // MARK: Containers

    /// Iterates an array's elements, calling `element` with each index; errors get the index in their path.
    static func array(
        _ s: inout JSONScanner, _ element: (inout JSONScanner, Int) throws(Failure) -> Void
    ) throws(Failure) {
        switch try kind(&s) {
        case .array: break
        case .null: throw .schema(SchemaError(kind: .null))
        default: throw .schema(SchemaError(kind: .mismatch("an array")))
        }
        do { try s.enterArray() } catch { throw .syntax(error) }
        var first = true
        var index = 0
        while true {
            let more: Bool
            do { more = try s.nextElement(&first) } catch { throw .syntax(error) }
            guard more else { return }
            do throws(Failure) {
                try element(&s, index)
            } catch let failure {
                guard case .schema(let error) = failure else { throw failure }
                throw .schema(error.prefixed(.index(index)))
            }
            index += 1
        }
    }

    static func list<Value>(
        _ s: inout JSONScanner, _ decode: (inout JSONScanner) throws(Failure) -> Value
    ) throws(Failure) -> [Value] {
        var values: [Value] = []
        try array(&s) { (s, _) throws(Failure) in values.append(try decode(&s)) }
        return values
    }

}
