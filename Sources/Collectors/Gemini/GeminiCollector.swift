import Portable
import Pricing
import Serialization
import Snapshots

/// What this machine's Gemini CLI sessions say: tokens per UTC day (`publish --source gemini[:DIR]`).
///
/// Reads `tmp/<project>/chats/session-*.json` (one document per session, rewritten as it grows, read
/// whole when it changed) and the newer `session-*.jsonl` (one message a line, read as appended), under
/// `~/.gemini` or DIR. A message of `type: "gemini"` carries `tokens {input, output, cached, thoughts,
/// tool, total}` and a `timestamp`; it counts `total` (else input + output + thoughts + tool), once per
/// message id wherever it is written. Its cost is the price of the message's `model` (else the last
/// model named before it in the piece read): input without what was cached (`cached` overlaps `input`
/// when `total` counts it once, as ccusage reads it) plus `tool` at the input rate, cached at the cache
/// rate, output and thoughts at the output rate. Gemini CLI's logs hold no quota windows; the account
/// is the active one of `google_accounts.json`.
public struct GeminiCollector: Sendable {
    public let home: String
    /// What messages are priced by.
    public let prices: PriceSource

    public init(home: String, prices: PriceSource = .bundled) {
        self.home = home
        self.prices = prices
    }

    /// `$GEMINI_CLI_HOME/.gemini` when set, else `~/.gemini`.
    public static func defaultHome(environment: [String: String]) -> String {
        if let home = environment["GEMINI_CLI_HOME"], !home.isEmpty { return home + "/.gemini" }
        return (environment["HOME"] ?? FileSystem.homeDirectory()) + "/.gemini"
    }

    /// The messages read, by identity, with their day and tokens.
    struct Scan: Sendable, Equatable {
        var messages: [UInt64: Counted] = [:]
        var newest: Date?
        /// The model the last message read named: a message without one is priced as that model.
        var model: String?

        struct Counted: Sendable, Equatable {
            /// Hours since 1970.
            var hour: Int32
            var model: String
            var spent: SpentTokens
            /// Nil when the message names no model the table prices.
            var costUSD: Double?
        }
    }

    public func collect(now: Date, stateFolder: String? = nil, readerVersion: String = "") throws -> ProviderUsage {
        try gather(now: now, stateFolder: stateFolder, readerVersion: readerVersion).usage
    }

    /// `collect`, with what the sessions say was spent by hour and model: the ledger's rows.
    public func gather(now: Date, stateFolder: String? = nil, readerVersion: String = "") throws -> Collected {
        let chats = home + "/tmp"
        guard FileManager.default.fileExists(atPath: chats) else {
            throw CollectorError("no Gemini CLI sessions in '\(home)': '\(chats)' does not exist")
        }
        let files = DirectoryWalk.files(under: [chats]) { name in
            name.hasPrefix("session-") && (name.hasSuffix(".json") || name.hasSuffix(".jsonl"))
        }.filter { ByteSearch.contains($0.path, "/chats/") }
        let statePath = stateFolder.map { LogScanState<Scan>.path(in: $0, name: "gemini", root: home) }
        let memoPath = statePath.map { $0 + ".memo" }
        let fingerprint = memoPath == nil ? nil : LogScanMemo.fingerprint(of: files)
        let totals: Totals
        var fromMemo = false
        if let memoPath, let fingerprint,
            let memo = LogScanMemo.load(
                Totals.self, from: memoPath, fingerprint: fingerprint, readerVersion: readerVersion)
        {
            totals = memo
            fromMemo = true
        } else {
            var scan = Scan()
            for partial in try LogScanState<Scan>.partials(
                of: files, statePath: statePath, readerVersion: readerVersion,
                reading: LogReading(zones: .utc, prices: prices))
            {
                scan.append(partial)
            }
            totals = Totals(scan)
            if let memoPath, let fingerprint {
                LogScanMemo.save(totals, to: memoPath, fingerprint: fingerprint, readerVersion: readerVersion)
            }
        }
        let account = JSONValue.read(contentsOf: home + "/google_accounts.json")?["active"]?.string
        let figures = totals.spend.recordFigures(now: now)
        let entry = ProviderUsage(
            providerID: "gemini", accountEmail: account.flatMap { $0.isEmpty ? nil : $0 },
            lastUpdated: totals.newest ?? now, tokens: figures.tokens, costUSD: figures.cost)
        let spend = totals.spend
        return Collected(
            usage: entry, ledgerFingerprint: fromMemo ? LogScanMemo.ledgerFingerprint(fingerprint, readerVersion) : nil,
            rows: { spend.rows(providerID: "gemini", accountEmail: nil, reportsReasoning: true) })
    }
}

/// What a run with nothing new needs of all the sessions: tokens per day, every message counted once
/// already, and the newest message's time. The memo keeps these, not every message: reading back ten
/// thousand messages by identity was a quarter of such a run.
extension GeminiCollector {
    struct Totals: Sendable, Equatable, LogScanMemo.Summary {
        var spend = HourlySpend()
        var newest: Date?

        // 3: tokens and cost by hour and model.
        static var memoMagic: String { "AGGGEMT3" }

        init(_ scan: Scan) {
            // In the messages' identities' order: dollars summed in a dictionary's order (which differs
            // between two dictionaries of the same messages) differ in their last digits.
            for identity in scan.messages.keys.sorted() {
                let counted = scan.messages[identity]!
                spend.add(
                    hour: counted.hour, model: spend.model(counted.model), tokens: counted.spent,
                    cost: counted.costUSD ?? .nan)
            }
            newest = scan.newest
        }

        private init(spend: HourlySpend, newest: Date?) {
            self.spend = spend
            self.newest = newest
        }

        func encode(into out: inout BinaryWriter) {
            spend.encode(into: &out)
            out.optionalDate(newest)
        }

        static func decode(from input: inout BinaryReader) throws -> Self {
            Self(spend: try HourlySpend.decode(from: &input), newest: try input.optionalDate())
        }
    }
}

extension GeminiCollector.Scan: LogScanPartial {
    // 2: each message's cost and the last model named; 3: its hour, model and tokens by kind.
    static var magic: String { "AGGGEMN3" }

    static func isWholeDocument(_ file: String) -> Bool { file.hasSuffix(".json") }

    mutating func append(_ later: Self) {
        messages.merge(later.messages) { _, new in new }
        newest.raise(to: later.newest)
        model = later.model ?? model
    }

    /// A whole `session-*.json` document, or complete lines of a `.jsonl` file.
    static func read(_ bytes: UnsafeRawBufferPointer, keepingSince cutoff: Date, reading: LogReading) -> Self {
        var scan = Self()
        if let document = JSONValue.parse(bytes), let list = document["messages"]?.array {
            for message in list { scan.add(message, prices: reading.prices) }
            return scan
        }
        guard let base = bytes.baseAddress else { return scan }
        var start = 0
        while start < bytes.count {
            var end = bytes.count
            if let newline = memchr(base + start, 0x0A, bytes.count - start) {
                end = base.distance(to: UnsafeRawPointer(newline))
            }
            if end > start, let message = JSONValue.parse(UnsafeRawBufferPointer(rebasing: bytes[start..<end])) {
                scan.add(message, prices: reading.prices)
            }
            start = end + 1
        }
        return scan
    }

    /// One message, when it is Gemini's with tokens and a time.
    mutating func add(_ message: JSONValue, prices: PriceSource) {
        if let named = message["model"]?.string, !named.isEmpty { model = named }
        guard message["type"]?.string == "gemini", let tokens = message["tokens"],
            let at = message["timestamp"]?.string.flatMap(RFC3339.parse)
        else { return }
        func count(_ key: String) -> Int { tokens[key]?.number.flatMap(wholeCount) ?? 0 }
        let (input, output, cached, thoughts, tool) =
            (count("input"), count("output"), count("cached"), count("thoughts"), count("tool"))
        let inclusive = [input, output, thoughts, tool].saturatingSum()
        let stated = tokens["total"]?.number.flatMap(wholeCount)
        let total = stated ?? inclusive
        // `cached` is part of `input` when the total counts it once (ccusage's rule); a message with only
        // its total is priced as output, as ccusage prices it.
        let fresh =
            cached > 0 && stated == inclusive && stated != inclusive.saturatingAdding(cached)
            ? input - min(input, cached) : input
        let counts =
            inclusive == 0 && cached == 0
            ? TokenCounts(output: total)
            : TokenCounts(
                input: fresh.saturatingAdding(tool), output: output.saturatingAdding(thoughts), cacheRead: cached)
        let cost = model.flatMap { prices.price(of: $0) }?.cost(of: counts)
        let id = message["id"]?.string ?? "\(at.timeIntervalSince1970)|\(total)"
        let spent = SpentTokens(
            input: counts.input, output: counts.output, cacheRead: counts.cacheRead, reasoning: thoughts
        ).fitted(toTotal: total)
        messages[BinaryWriter.fnv1a(id.utf8)] = Counted(
            hour: HourlySpend.hour(of: at), model: model ?? "unknown", spent: spent, costUSD: cost)
        newest.raise(to: at)
    }

    mutating func prune(before cutoff: Date) -> Bool { false }

    func encode(into out: inout BinaryWriter) {
        out.u32(UInt32(messages.count))
        for (identity, counted) in messages {
            out.u64(identity)
            out.u32(UInt32(bitPattern: counted.hour))
            out.string(counted.model)
            out.int(counted.spent.input)
            out.int(counted.spent.output)
            out.int(counted.spent.cacheRead)
            out.int(counted.spent.reasoning)
            out.optionalDouble(counted.costUSD)
        }
        out.optionalDate(newest)
        out.optionalString(model)
    }

    static func decode(from input: inout BinaryReader) throws -> Self {
        var scan = Self()
        for _ in 0..<Int(try input.u32()) {
            let identity = try input.u64()
            let (hour, model) = (Int32(bitPattern: try input.u32()), try input.string())
            var spent = SpentTokens()
            // A count below 0 is damage, read as none.
            spent.add(
                SpentTokens(
                    input: try input.int(), output: try input.int(), cacheRead: try input.int(),
                    reasoning: try input.int()),
                sign: 1)
            scan.messages[identity] = Counted(
                hour: hour, model: model, spent: spent, costUSD: try input.optionalDouble())
        }
        scan.newest = try input.optionalDate()
        scan.model = try input.optionalString()
        return scan
    }
}
