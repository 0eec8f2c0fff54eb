import Portable
import Serialization

/// Reads and writes ledger months (`Ledger`), as `RecordCodec` does records: the same schema machinery,
/// read as hostile: a month that is not one is refused with one line, a row that cannot be used is
/// skipped with a note, a value that cannot be used is dropped with a note.
public enum LedgerCodec {
    /// A month larger than this is refused before it is read: a machine's busiest month is a few hundred
    /// kilobytes (744 hours of a handful of models).
    public static let maximumSize = 4 * 1024 * 1024

    /// The month's canonical compact JSON, a newline after it: keys sorted, rows in their order.
    public static func encode(_ ledger: Ledger) throws -> Data {
        var json = RecordJSON(pretty: false, capacity: 256 + ledger.rows.count * 240)
        let rows = ledger.rows.sorted { $0.key < $1.key }
        let fields = LedgerFields(
            schemaVersion: ledger.schemaVersion, deviceID: ledger.deviceID.rawValue, month: ledger.month,
            generatedAt: ledger.generatedAt, pricesAsOf: ledger.pricesAsOf,
            rows: LedgerRows(read: rows.map { .success($0) }))
        try fields.write(to: &json)
        return Data(json.bytes + [0x0A])
    }

    /// A month as stored at `ledger/<deviceID>/<month>.json`, checked against that path.
    ///
    /// - Returns: the month, its rows sorted, and a note for each row or value left out.
    /// - Throws: `RecordDecodingError` with one line when it is not that device's month at all.
    public static func decode(
        _ bytes: UnsafeRawBufferPointer, deviceID: DeviceID, month: String
    ) throws(RecordDecodingError) -> (ledger: Ledger, notes: [String]) {
        guard bytes.count <= maximumSize else {
            throw RecordDecodingError(reason: "a ledger month of \(bytes.count) bytes; at most \(maximumSize) are read")
        }
        guard let start = monthStart(month), let end = monthStart(nextMonth(of: month) ?? "") else {
            throw RecordDecodingError(reason: "'\(month)' is not a month (YYYY-MM)")
        }
        var scanner = JSONScanner(bytes)
        let fields: LedgerFields
        do throws(FastRecordDecoder.Failure) {
            fields = try LedgerFields.read(&scanner, .full)
            do { try scanner.finish() } catch { throw .syntax(error) }
        } catch {
            switch error {
            case .syntax(let error): throw RecordDecodingError(reason: error.reason)
            case .schema(let error): throw RecordDecodingError(reason: error.reason)
            }
        }
        guard (fields.schemaVersion ?? 1) >= 1 else {
            throw RecordDecodingError(reason: "schemaVersion \(fields.schemaVersion ?? 0) is not a version")
        }
        if let named = fields.deviceID, named != deviceID.rawValue {
            throw RecordDecodingError(
                reason: "names the device '\(named.prefix(64))', not '\(deviceID.rawValue)' whose folder it is in")
        }
        guard fields.month == month else {
            throw RecordDecodingError(reason: "holds the month '\(fields.month.prefix(16))', not '\(month)'")
        }
        var notes = scanner.readerNotes.compactMap { ($0 as? FastRecordDecoder.DroppedValue)?.note }
        var rows: [LedgerRow] = []
        var seen: Set<LedgerRow.Key> = []
        for (index, read) in fields.rows.read.enumerated() {
            guard var row = try? read.get() else {
                if case .failure(let failure) = read { notes.append("row skipped: \(failure.reason)") }
                continue
            }
            let place = "rows[\(index)]"
            let seconds = row.at.timeIntervalSince1970
            guard row.at >= start, row.at < end, seconds == (seconds / 3600).rounded(.down) * 3600 else {
                notes.append("\(place) skipped: its hour is not the start of an hour of \(month)")
                continue
            }
            if let problem = ProviderUsage.problem(withProviderID: row.providerID) {
                notes.append("\(place) skipped: \(problem)")
                continue
            }
            guard row.inputTokens >= 0, row.outputTokens >= 0, row.cacheWriteTokens >= 0, row.cacheReadTokens >= 0,
                (row.reasoningTokens ?? 0) >= 0
            else {
                notes.append("\(place) skipped: a token count below 0")
                continue
            }
            if let cost = row.costUSD, !(cost.isFinite && cost >= 0) {
                notes.append("\(place).costUSD dropped: not a cost; the row is unpriced")
                row.costUSD = nil
            }
            // Kept as the agent named them (each output makes text safe for its medium), within bounds.
            guard row.model.utf8.count <= 256, (row.accountEmail?.utf8.count ?? 0) <= 256 else {
                notes.append("\(place) skipped: a model or account name over 256 bytes")
                continue
            }
            if row.model.isEmpty { row.model = "unknown" }
            if row.accountEmail?.isEmpty == true { row.accountEmail = nil }
            guard seen.insert(row.key).inserted else {
                notes.append("\(place) skipped: the same hour, account and model as a row before it")
                continue
            }
            rows.append(row)
        }
        rows.sort { $0.key < $1.key }
        var ledger = Ledger(
            deviceID: deviceID, month: month, generatedAt: fields.generatedAt, pricesAsOf: fields.pricesAsOf,
            rows: rows)
        ledger.schemaVersion = fields.schemaVersion ?? 1
        return (ledger, notes)
    }

    static func monthStart(_ month: String) -> Date? {
        let utf8 = Array(month.utf8)
        guard utf8.count == 7, utf8[4] == UInt8(ascii: "-") else { return nil }
        return RFC3339.parse(month + "-01T00:00:00Z")
    }

    public static func nextMonth(of month: String) -> String? {
        guard let year = Int(month.prefix(4)), let number = Int(month.suffix(2)), (1...12).contains(number) else {
            return nil
        }
        let next = number == 12 ? (year + 1, 1) : (year, number + 1)
        return String(cFormat: "%04ld-%02ld", next.0, next.1)
    }
}
