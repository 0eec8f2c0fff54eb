import Portable
import Serialization

/// What one machine spent in one UTC month: tokens and cost by hour, provider, account and model
/// (`<store>/ledger/<deviceID>/<YYYY-MM>.json`; docs/format.md, "The ledger"). History, not a live
/// figure: it is beside the record, not in it, and only `cost`, `report`, `serve` and `export` read it.
public struct Ledger: Sendable, Equatable {
    public var schemaVersion = 1
    public var deviceID: DeviceID
    /// `2026-12`: the UTC month every row's hour falls in.
    public var month: String
    public var generatedAt: Date
    /// The date of the price table the costs come from.
    public var pricesAsOf: String?
    /// Sorted by hour, provider, account and model, one row each.
    public var rows: [LedgerRow]

    public init(deviceID: DeviceID, month: String, generatedAt: Date, pricesAsOf: String? = nil, rows: [LedgerRow]) {
        self.deviceID = deviceID
        self.month = month
        self.generatedAt = generatedAt
        self.pricesAsOf = pricesAsOf
        self.rows = rows
    }
}

/// One hour of one model's use by one account on one machine.
public struct LedgerRow: Sendable, Equatable {
    /// The start of a UTC hour.
    public var at: Date
    public var providerID: String
    public var accountEmail: String?
    /// As the agent names it (`claude-opus-4-6`); `unknown` when it named none.
    public var model: String
    /// Prompt tokens neither written to nor read from a cache (Codex: without the cached part).
    public var inputTokens: Int
    /// Output tokens, reasoning included (also given alone in `reasoningTokens`).
    public var outputTokens: Int
    public var cacheWriteTokens: Int
    public var cacheReadTokens: Int
    public var reasoningTokens: Int?
    /// Nil when the model has no price: the row is unpriced, never counted as 0.
    public var costUSD: Double?

    public init(
        at: Date, providerID: String, accountEmail: String? = nil, model: String, inputTokens: Int = 0,
        outputTokens: Int = 0, cacheWriteTokens: Int = 0, cacheReadTokens: Int = 0, reasoningTokens: Int? = nil,
        costUSD: Double? = nil
    ) {
        self.at = at
        self.providerID = providerID
        self.accountEmail = accountEmail
        self.model = model
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
        self.cacheWriteTokens = cacheWriteTokens
        self.cacheReadTokens = cacheReadTokens
        self.reasoningTokens = reasoningTokens
        self.costUSD = costUSD
    }

    /// What a row is one of: rows of one key are one hour of one model's use.
    public var key: Key { Key(at: at, providerID: providerID, accountEmail: accountEmail, model: model) }

    public struct Key: Hashable, Comparable, Sendable {
        public var at: Date
        public var providerID: String
        public var accountEmail: String?
        public var model: String

        public static func < (a: Key, b: Key) -> Bool {
            if a.at != b.at { return a.at < b.at }
            if a.providerID != b.providerID { return ByteOrder.precedes(a.providerID, b.providerID) }
            if a.accountEmail != b.accountEmail {
                // No account after every account.
                guard let left = a.accountEmail else { return false }
                guard let right = b.accountEmail else { return true }
                return ByteOrder.precedes(left, right)
            }
            return ByteOrder.precedes(a.model, b.model)
        }
    }
}

// MARK: The schema

extension LedgerRow: SchemaObject {
    static let schema = Schema<LedgerRow>([
        .field("at", \.at),
        .field("providerID", \.providerID),
        .field("accountEmail", \.accountEmail),
        .field("model", \.model),
        .field("inputTokens", \.inputTokens),
        .field("outputTokens", \.outputTokens),
        .field("cacheWriteTokens", \.cacheWriteTokens),
        .field("cacheReadTokens", \.cacheReadTokens),
        .field("reasoningTokens", \.reasoningTokens),
        .field("costUSD", \.costUSD),
    ])

    static var blank: LedgerRow { LedgerRow(at: Date(timeIntervalSince1970: 0), providerID: "", model: "") }
}

/// A ledger as stored, before validation.
struct LedgerFields: SchemaObject {
    var schemaVersion: Int?
    var deviceID: String?
    var month: String
    var generatedAt: Date
    var pricesAsOf: String?
    var rows: LedgerRows

    static let schema = Schema<LedgerFields>([
        .field("schemaVersion", \.schemaVersion),
        .field("deviceID", \.deviceID),
        .field("month", \.month),
        .field("generatedAt", \.generatedAt),
        .field("pricesAsOf", \.pricesAsOf),
        .field("rows", \.rows),
    ])

    static var blank: LedgerFields {
        LedgerFields(month: "", generatedAt: Date(timeIntervalSince1970: 0), rows: LedgerRows(read: []))
    }
}

/// The rows as read: a row that cannot be used is skipped with a note, never the month.
struct LedgerRows: SchemaValue {
    var read: [Result<LedgerRow, RecordFields.EntryFailure>]

    static func read(_ s: inout JSONScanner, _ history: HistoryDetail) throws(FastRecordDecoder.Failure) -> Self {
        var rows: [Result<LedgerRow, RecordFields.EntryFailure>] = []
        try FastRecordDecoder.array(&s) { (s, index) throws(FastRecordDecoder.Failure) in
            let mark = (index: s.index, depth: s.depth)
            let notesBefore = s.readerNotes.count
            do throws(FastRecordDecoder.Failure) {
                rows.append(.success(try LedgerRow.read(&s, history)))
            } catch let failure {
                guard case .schema(let error) = failure else { throw failure }
                s.readerNotes.removeSubrange(notesBefore...)
                s.index = mark.index
                s.depth = mark.depth
                try FastRecordDecoder.skip(&s)
                let located = error.prefixed(.index(index)).prefixed(.key("rows"))
                rows.append(.failure(RecordFields.EntryFailure(reason: located.reason)))
            }
        }
        return LedgerRows(read: rows)
    }

    var usable: [LedgerRow] { read.compactMap { try? $0.get() } }

    func write(to json: inout RecordJSON) throws { try usable.write(to: &json) }
    func keep(in out: inout BinaryWriter) { usable.keep(in: &out) }
    static func restore(from reader: inout BinaryReader) throws -> Self {
        LedgerRows(read: try [LedgerRow].restore(from: &reader).map { .success($0) })
    }
}

extension Ledger {
    /// The rows of `month` once a publish's `computed` rows (this machine's logs read now) are laid over
    /// the `published` ones: a computed row stands for its hour, account and model unless it counts fewer
    /// tokens than was published (the agent deleted some of that hour's logs: what was published stays),
    /// and a published row the logs no longer give stays as it was. Nothing spent is lost; a price
    /// update reprices every hour whose logs are still here.
    ///
    /// Both lists are walked once in key order (a month's rows come sorted from `LedgerCodec`; a list that
    /// is not is sorted first), the later of two rows of one key standing within a list.
    public static func merged(published: [LedgerRow], computed: [LedgerRow]) -> [LedgerRow] {
        let published = sortedUnique(published)
        let computed = sortedUnique(computed)
        var merged: [LedgerRow] = []
        merged.reserveCapacity(published.count + computed.count)
        var (old, new) = (0, 0)
        while old < published.count || new < computed.count {
            guard new < computed.count else {
                merged.append(published[old])
                old += 1
                continue
            }
            guard old < published.count, published[old].key <= computed[new].key else {
                merged.append(computed[new])
                new += 1
                continue
            }
            if published[old].key < computed[new].key {
                merged.append(published[old])
            } else {
                let (earlier, row) = (published[old], computed[new])
                merged.append(earlier.totalTokens > row.totalTokens ? earlier : row)
                new += 1
            }
            old += 1
        }
        return merged
    }

    /// `rows` in key order, one row a key (the last given of each).
    private static func sortedUnique(_ rows: [LedgerRow]) -> [LedgerRow] {
        var sorted = rows
        if !zip(rows, rows.dropFirst()).allSatisfy({ $0.key < $1.key }) {
            sorted = rows.enumerated().sorted {
                $0.element.key != $1.element.key ? $0.element.key < $1.element.key : $0.offset < $1.offset
            }
            .map(\.element)
            var unique: [LedgerRow] = []
            for row in sorted {
                if unique.last?.key == row.key { unique[unique.count - 1] = row } else { unique.append(row) }
            }
            sorted = unique
        }
        return sorted
    }

    /// `2026-12`: the UTC month of `date`.
    public static func month(of date: Date) -> String { String(RFC3339.utcDay(date).prefix(7)) }
}

extension LedgerRow {
    /// Every token of the row once: reasoning is part of the output.
    public var totalTokens: Int {
        inputTokens.saturatingAdding(outputTokens).saturatingAdding(cacheWriteTokens).saturatingAdding(
            cacheReadTokens)
    }
}
