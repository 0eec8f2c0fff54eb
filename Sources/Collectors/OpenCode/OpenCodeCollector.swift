import Portable
import Pricing
import SQLite
import Serialization
import Snapshots

/// What this machine's OpenCode says was spent (`publish --source opencode[:DATA_DIR]`): its SQLite
/// database's messages, tokens and cost by hour and model, into the record and the ledger.
///
/// Where and what, as ccusage's OpenCode adapter reads it (ryoppippi/ccusage, `rust/crates/ccusage/src/
/// adapter/opencode/` at 5816e640): `$OPENCODE_DATA_DIR` (default `~/.local/share/opencode`) holds
/// `opencode.db`, else a channel's `opencode-<name>.db` (the first by name); its table `message` has
/// `id`, `session_id` and `data`, a JSON object with `tokens {input, output, reasoning, cache {read,
/// write}, total}`, `modelID`, `providerID`, `time.created` (milliseconds) and the `cost` OpenCode wrote.
/// Older versions kept each message as a JSON file under `storage/message/`; those are read too, a
/// message the database has standing over its file. A message counts when it has tokens, a model and a
/// provider. Its cost is OpenCode's own when above 0, else the price table's for its model (a
/// `claude-sonnet-4.5` spelling read as `claude-sonnet-4-5`). The database is opened immutable: OpenCode
/// may be writing it, and is never made to wait.
public struct OpenCodeCollector: Sendable {
    public let folder: String
    public let prices: PriceSource

    public init(folder: String, prices: PriceSource = .bundled) {
        self.folder = folder
        self.prices = prices
    }

    /// `$OPENCODE_DATA_DIR`, else `$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode`.
    public static func defaultFolder(environment: [String: String]) -> String {
        if let folder = environment["OPENCODE_DATA_DIR"], !folder.isEmpty { return folder }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/opencode" }
        return (environment["HOME"] ?? FileSystem.homeDirectory()) + "/.local/share/opencode"
    }

    /// One message as it counts.
    struct Message {
        var id: String?
        var at: Date
        var model: String
        var spent: SpentTokens
        /// NaN when unpriced.
        var costUSD: Double
    }

    public func collect(now: Date) throws -> ProviderUsage { try gather(now: now).usage }

    /// - Parameter stateFolder: where to keep what the database and files summed to, read back while
    ///   none of them changed (their identities: the database, its write-ahead log, each message file).
    public func gather(now: Date, stateFolder: String? = nil, readerVersion: String = "") throws -> Collected {
        let database = Self.database(in: folder)
        let messageFiles = DirectoryWalk.files(under: [folder + "/storage/message"]) { $0.hasSuffix(".json") }
        guard database != nil || !messageFiles.isEmpty else {
            throw CollectorError(
                "no OpenCode data in '\(folder)': neither opencode.db nor storage/message/ (set OPENCODE_DATA_DIR, or --source opencode:DIR)"
            )
        }
        let watched =
            (database.map { [$0, $0 + "-wal"] } ?? []).compactMap { path in
                // The write-ahead log is there only while OpenCode has the database open.
                fileIdentity(path).map { DirectoryWalk.Found(path: path, identity: $0) }
            }
            + messageFiles
        // Named as the log collectors' memos are: by the source and a hash of its folder.
        let memoPath = stateFolder.map {
            $0 + "/opencode-" + String(BinaryWriter.fnv1a(folder.utf8), radix: 16) + ".scan.memo"
        }
        let fingerprint = memoPath == nil ? nil : LogScanMemo.fingerprint(of: watched)
        let totals: Totals
        var fromMemo = false
        if let memoPath, let fingerprint,
            let memo = LogScanMemo.load(
                Totals.self, from: memoPath, fingerprint: fingerprint, readerVersion: readerVersion)
        {
            (totals, fromMemo) = (memo, true)
        } else {
            totals = try read(database: database, messageFiles: messageFiles)
            if let memoPath, let fingerprint {
                LogScanMemo.save(totals, to: memoPath, fingerprint: fingerprint, readerVersion: readerVersion)
            }
        }
        let figures = totals.spend.recordFigures(now: now)
        let sums = totals.spend
        let usage = ProviderUsage(
            providerID: "opencode", lastUpdated: totals.newest ?? now, tokens: figures.tokens, costUSD: figures.cost)
        return Collected(
            usage: usage, ledgerFingerprint: fromMemo ? LogScanMemo.ledgerFingerprint(fingerprint, readerVersion) : nil,
            rows: { sums.rows(providerID: "opencode", accountEmail: nil, reportsReasoning: true) })
    }

    /// What the database and the message files sum to: tokens and cost by hour and model, and the newest
    /// message's time.
    struct Totals: LogScanMemo.Summary {
        var spend = HourlySpend()
        var newest: Date?

        static var memoMagic: String { "AGGOPNC1" }

        func encode(into out: inout BinaryWriter) {
            spend.encode(into: &out)
            out.optionalDate(newest)
        }

        static func decode(from input: inout BinaryReader) throws -> Self {
            Self(spend: try HourlySpend.decode(from: &input), newest: try input.optionalDate())
        }
    }

    func read(database: String?, messageFiles: [DirectoryWalk.Found]) throws -> Totals {
        var messages: [Message] = []
        var fromDatabase = Set<String>()
        if let database {
            do {
                try SQLiteDatabase(path: database, mode: .immutable).rows(
                    "SELECT id, session_id, data FROM message"
                ) { row in
                    guard let data = row[2].text,
                        let value = Array(data.utf8).withUnsafeBytes({ JSONValue.parse($0) }),
                        let message = message(value, id: row[0].text)
                    else { return }
                    if let id = message.id { fromDatabase.insert(id) }
                    messages.append(message)
                }
            } catch {
                throw CollectorError("\(error)")
            }
        }
        // Files in the byte order of their paths: the same sums every run.
        for index in ByteOrder.order(of: messageFiles.map(\.path)) {
            guard let data = FileSystem.contents(of: messageFiles[index].path), data.count <= 4 << 20,
                let value = data.withUnsafeBytes({ JSONValue.parse($0) }),
                let message = message(value, id: value["id"]?.string), !fromDatabase.contains(message.id ?? "")
            else { continue }
            messages.append(message)
        }
        var totals = Totals()
        for message in messages.sorted(by: { $0.at < $1.at }) {
            totals.spend.add(
                hour: HourlySpend.hour(of: message.at), model: totals.spend.model(message.model),
                tokens: message.spent, cost: message.costUSD)
        }
        totals.newest = messages.map(\.at).max()
        return totals
    }

    /// `opencode.db`, else the first `opencode-<name>.db` by name (a channel's); nil when there is none.
    static func database(in folder: String) -> String? {
        if FileSystem.isFolder(folder + "/opencode.db") == false { return folder + "/opencode.db" }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let channels = names.filter { name in
            guard name.hasPrefix("opencode-"), name.hasSuffix(".db"), name.count > 12 else { return false }
            return name.dropFirst(9).dropLast(3).allSatisfy {
                $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-")
            }
        }
        return channels.min(by: ByteOrder.precedes).map { folder + "/" + $0 }
    }

    /// A message's figures, or nil when it counts nothing (no tokens, model or provider).
    func message(_ value: JSONValue, id: String?) -> Message? {
        guard let tokens = value["tokens"], let model = value["modelID"]?.string, !model.isEmpty,
            let provider = value["providerID"]?.string, !provider.isEmpty
        else { return nil }
        func count(_ value: JSONValue?) -> Int { value?.number.flatMap(wholeCount) ?? 0 }
        var spent = SpentTokens(
            input: count(tokens["input"]), output: count(tokens["output"]),
            cacheWrite: count(tokens["cache"]?["write"]), cacheRead: count(tokens["cache"]?["read"]),
            reasoning: count(tokens["reasoning"]))
        // A total past the parts: what they leave out is output (ccusage's total fallback does the same).
        spent = spent.fitted(toTotal: count(tokens["total"]))
        guard spent.total > 0 else { return nil }
        let millis = value["time"]?["created"]?.number ?? 0
        let at = Date(timeIntervalSince1970: (millis.isFinite ? millis : 0) / 1000)
        let written = value["cost"]?.number.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        let cost =
            written
            ?? prices.price(of: Self.priceName(of: model))?.cost(
                of: TokenCounts(
                    input: spent.input, output: spent.output, cacheWrite: spent.cacheWrite, cacheRead: spent.cacheRead))
            ?? .nan
        return Message(id: id, at: at, model: model, spent: spent, costUSD: cost)
    }

    /// OpenCode's spelling of a Claude model with a dot (`claude-sonnet-4.5`) as the table's
    /// (`claude-sonnet-4-5`), as ccusage's `normalize_open_code_model_name` reads it.
    static func priceName(of model: String) -> String {
        for family in ["claude-haiku-", "claude-opus-", "claude-sonnet-"] where model.hasPrefix(family) {
            let rest = model.dropFirst(family.count)
            if let dot = rest.firstIndex(of: "."), rest[..<dot].allSatisfy(\.isNumber),
                rest[rest.index(after: dot)...].first?.isNumber == true
            {
                return family + rest[..<dot] + "-" + rest[rest.index(after: dot)...]
            }
        }
        return model
    }
}
