import CShims
import Portable
import Pricing
import Serialization
import Snapshots

extension CodexCollector {
    /// The responses of one file, one by one, in the order the file holds them.
    ///
    /// Kept per response (not as sums per day) because a file's responses are judged against other
    /// files': a fork replays its parent's responses at its start, and a line may be copied into several
    /// files (`combine`). Stored as plain columns, so that loading them is a copy.
    struct Responses: Equatable, Sendable {
        /// What every file's responses spent by hour and model: only in the memo, which keeps all files
        /// combined.
        var spend = HourlySpend()
        /// When each response was logged (seconds since 1970).
        var moments: [Double] = []
        /// Its tokens by kind, adding up to the total it reported.
        var spent: [SpentTokens] = []
        /// The number of its model in `models`.
        var modelNumbers: [UInt32] = []
        var models: [String] = []
        /// What each response cost; NaN where its model is unpriced or unknown.
        var costs: [Double] = []
        /// What each response reported, without its time (`signature(last:cumulative:)`, or its
        /// `response_id`'s hash): a replay re-dates the lines but keeps what they say.
        var signatures: [UInt64] = []

        var count: Int { moments.count }
        var isEmpty: Bool { moments.isEmpty }

        mutating func append(at: Date, spent tokens: SpentTokens, model: String?, cost: Double?, signature: UInt64) {
            moments.append(at.timeIntervalSince1970)
            spent.append(tokens)
            modelNumbers.append(number(of: model ?? "unknown"))
            costs.append(cost ?? .nan)
            signatures.append(signature)
        }

        mutating func number(of model: String) -> UInt32 {
            if let found = models.firstIndex(of: model) { return UInt32(found) }
            models.append(model)
            return UInt32(models.count - 1)
        }

        mutating func append(contentsOf other: Responses) {
            moments += other.moments
            spent += other.spent
            let numbers = other.models.map { number(of: $0) }
            modelNumbers += other.modelNumbers.map { Int($0) < numbers.count ? numbers[Int($0)] : 0 }
            costs += other.costs
            signatures += other.signatures
        }

        /// The model of response `index`.
        func model(_ index: Int) -> String {
            let number = Int(modelNumbers[index])
            return number < models.count ? models[number] : "unknown"
        }
    }

    /// What a `token_count` reported (its response's and its session's totals), as one number.
    static func signature(last: Int?, cumulative: Int?) -> UInt64 {
        mixed(mixed(UInt64(bitPattern: Int64(last ?? -1))) &+ UInt64(bitPattern: Int64(cumulative ?? -1)))
    }

    /// The memo's 64-bit finalizer: every bit of the result depends on every bit of `value`.
    static func mixed(_ value: UInt64) -> UInt64 { LogScanMemo.mixed(value) }

    /// Everything read from one log file: the newest rate limits, and its responses.
    ///
    /// One response can be written both as a `token_count` and as a `token_usage_record`: a file with
    /// records counts its records only.
    struct Scan: Sendable {
        var latest: RateLimits?
        /// The windows each event reported, thinned (`CodexCollector.keep`), oldest first.
        var trail: [LimitSample] = []
        var limitHit: LimitHit?
        var counts = Responses()
        var records = Responses()
        var newestEvent: Date?
        /// The session this one was forked or spawned from (its first line, `session_meta`, says so);
        /// nil for a session of its own. Such a file begins with a replay of the parent's history.
        var parentID: String?
        /// When the forked session began: which of a missing parent's children replayed first.
        var forkedAt: Date?
        /// The session's last `total_token_usage`: an event with only that total counts its growth.
        var lastCumulative: Int?
        /// Its parts, which that growth is priced by.
        var lastCumulativeParts: CodexEventDecoder.Breakdown?
        /// The first total-only event of a piece read with no total before it in the piece: counted from 0
        /// (right for the file's start), and made its growth when the piece is added to what came before
        /// it in the file (`extend`): its index in `counts`, its total, its parts and the price they were
        /// priced by (nil when unpriced).
        var pendingCumulative: (index: Int, total: Int)?
        var pendingParts: (parts: CodexEventDecoder.Breakdown, price: ModelPrice?)?
        /// The model the last `turn_context` named: the responses after it are priced by it.
        var model: String?

        /// The responses this file counts.
        var responses: Responses { records.isEmpty ? counts : records }

        /// Whether nothing at all was read yet: only then can a `session_meta` be the file's first line.
        var isBlank: Bool { counts.isEmpty && records.isEmpty && newestEvent == nil && latest == nil }

        /// Adds what was appended to the same file since.
        mutating func extend(_ later: Scan) {
            if isBlank, parentID == nil {
                (parentID, forkedAt) = (later.parentID, later.forkedAt)
            }
            mergeLimits(later)
            var later = later
            // The later piece's first total counts against this part's last; with none here yet (this
            // part saw no total), it stays counted from 0, for what comes before this part or the file's start.
            if let pending = later.pendingCumulative {
                if let previous = lastCumulative {
                    // Its growth priced as its parts grew; unpriced where either total had no parts.
                    let grownParts = later.pendingParts.flatMap { priced in
                        lastCumulativeParts.map { priced.parts.growth(since: $0) }
                    }
                    later.counts.spent[pending.index] = CodexCollector.spent(
                        grownParts, total: max(pending.total - previous, 0))
                    let grown = later.pendingParts.flatMap { priced in
                        grownParts.flatMap { priced.price?.cost(of: CodexCollector.billed($0)) }
                    }
                    later.counts.costs[pending.index] = grown ?? .nan
                } else {
                    pendingCumulative = (counts.count + pending.index, pending.total)
                    pendingParts = later.pendingParts
                }
            }
            lastCumulative = later.lastCumulative ?? lastCumulative
            lastCumulativeParts = later.lastCumulativeParts ?? lastCumulativeParts
            model = later.model ?? model
            counts.append(contentsOf: later.counts)
            records.append(contentsOf: later.records)
            for sample in later.trail { CodexCollector.keep(sample, in: &trail) }
        }

        mutating func mergeLimits(_ other: Scan) {
            if let limits = other.latest, latest.map({ limits.at > $0.at }) ?? true { latest = limits }
            if let hit = other.limitHit, limitHit.map({ hit.at > $0.at }) ?? true { limitHit = hit }
            newestEvent.raise(to: other.newestEvent)
        }
    }

    /// Reads the lines that can matter, found with `memmem`: those holding `"token_` (`token_count`,
    /// `token_usage_record`), and `usage_limit_exceeded` after the last of them. A limit hit before a
    /// later token count of the same file is older than that count's limits, which stand instead (Codex
    /// stops at a limit; its next counts come after the reset): searching only the tail spares a second
    /// pass over gigabytes of logs.
    static func scan(bytes: UnsafeRawBufferPointer, reading: LogReading = LogReading(zones: .utc)) -> Scan {
        var scan = Scan()
        // The models the turns use, where each is named: a response is priced by the last one before it.
        var turns: [(offset: Int, model: String)] = []
        forEachLine(containing: "\"turn_context\"", in: bytes) { line in
            if let event = CodexEventDecoder.decode(line), let model = event.model, let start = line.baseAddress,
                let base = bytes.baseAddress
            {
                turns.append((base.distance(to: start), model))
            }
        }
        var nextTurn = 0
        func modelBefore(_ line: UnsafeRawBufferPointer) {
            guard let start = line.baseAddress, let base = bytes.baseAddress else { return }
            let offset = base.distance(to: start)
            while nextTurn < turns.count, turns[nextTurn].offset < offset {
                scan.model = turns[nextTurn].model
                nextTurn += 1
            }
        }
        // A forked or spawned session says so in its `session_meta`, the file's first line; parsed only
        // when it names a parent (the line carries the instructions: kilobytes of text).
        let firstLine = UnsafeRawBufferPointer(
            rebasing: bytes[0..<(bytes.firstIndex(of: 0x0A) ?? bytes.count)])
        if ByteSearch.contains(firstLine, "\"session_meta\""),
            ByteSearch.contains(firstLine, "\"forked_from_id\"")
                || ByteSearch.contains(firstLine, "\"parent_thread_id\""),
            let parent = CodexEventDecoder.parentSession(firstLine)
        {
            (scan.parentID, scan.forkedAt) = (parent.parent, parent.startedAt)
        }
        var tail = 0
        // One pass for both kinds: a second, with the longer needles, cost more than it saved.
        forEachLine(containing: "\"token_", in: bytes) { line in
            modelBefore(line)
            if let event = CodexEventDecoder.decode(line) { scan.record(event, reading: reading) }
            if let start = line.baseAddress, let base = bytes.baseAddress {
                tail = base.distance(to: start) + line.count
            }
        }
        forEachLine(containing: "usage_limit_exceeded", in: UnsafeRawBufferPointer(rebasing: bytes[tail...])) { line in
            if let event = CodexEventDecoder.decode(line) { scan.record(event, reading: reading) }
        }
        // A turn named after the last response still names the model of what comes next.
        if let last = turns.last { scan.model = last.model }
        return scan
    }

    /// Calls `body` with each line of `bytes` that holds `marker`, once per line.
    static func forEachLine(
        containing marker: String, in bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void
    ) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        let needle = Array(marker.utf8)
        var offset = 0
        while offset < bytes.count {
            let found = needle.withUnsafeBytes { needle in
                aggctl_memmem(base + offset, bytes.count - offset, needle.baseAddress, needle.count)
            }
            guard let found else { break }
            let hit = base.distance(to: UnsafeRawPointer(found))
            var start = hit
            while start > 0 && bytes[start - 1] != 0x0A { start -= 1 }
            var end = hit
            while end < bytes.count && bytes[end] != 0x0A { end += 1 }
            body(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
            offset = end + 1
        }
    }
}

extension CodexCollector {
    /// A Codex usage as a provider bills it: input without its cached part, cached at the cached rate,
    /// output with its reasoning (ccusage's `calculate_codex_model_cost`).
    static func billed(_ parts: CodexEventDecoder.Breakdown) -> TokenCounts {
        TokenCounts(input: parts.input - min(parts.cached, parts.input), output: parts.output, cacheRead: parts.cached)
    }

    /// A response's tokens by kind as the ledger counts them, adding up to the `total` it reported (parts
    /// it does not give are output: see `SpentTokens.fitted`).
    static func spent(_ parts: CodexEventDecoder.Breakdown?, total: Int) -> SpentTokens {
        guard let parts else { return SpentTokens(output: total) }
        let billed = billed(parts)
        return SpentTokens(
            input: billed.input, output: billed.output, cacheRead: billed.cacheRead, reasoning: parts.reasoning
        ).fitted(toTotal: total)
    }
}

extension CodexCollector.Scan {
    /// Adds one log line's event.
    mutating func record(_ event: CodexEventDecoder.Event, reading: LogReading) {
        let at = event.at
        newestEvent.raise(to: at)
        // The line's own model, else the turn's.
        let price = (event.model ?? model).flatMap { reading.prices.price(of: $0) }
        func cost(_ parts: CodexEventDecoder.Breakdown?) -> Double? {
            parts.flatMap { parts in price?.cost(of: CodexCollector.billed(parts)) }
        }
        switch event.kind {
        case .turnContext:
            model = event.model ?? model
            return
        case .usageRecord:
            if let total = event.totalTokens {
                let signature = BinaryWriter.fnv1a((event.responseID ?? "").utf8)
                records.append(
                    at: at, spent: CodexCollector.spent(event.lastUsage, total: total), model: event.model ?? model,
                    cost: cost(event.lastUsage), signature: signature)
            }
            return
        case .limitHit:
            if limitHit.map({ at > $0.at }) ?? true {
                limitHit = CodexCollector.LimitHit(
                    at: at,
                    until: event.message.flatMap {
                        CodexLimitMessage.retryTime(in: $0, after: at, zones: reading.zones)
                    })
            }
            return
        case .tokenCount:
            let signature = CodexCollector.signature(last: event.totalTokens, cumulative: event.cumulativeTokens)
            let answering = event.model ?? model
            if let total = event.totalTokens {
                counts.append(
                    at: at, spent: CodexCollector.spent(event.lastUsage, total: total), model: answering,
                    cost: cost(event.lastUsage), signature: signature)
            } else if let cumulative = event.cumulativeTokens {
                // Only the session's total: what it grew by since the last (ccusage counts the same).
                if let previous = lastCumulative {
                    let grown = event.cumulativeUsage.flatMap { now in lastCumulativeParts.map { now.growth(since: $0) }
                    }
                    let total = max(cumulative - previous, 0)
                    counts.append(
                        at: at, spent: CodexCollector.spent(grown, total: total), model: answering, cost: cost(grown),
                        signature: signature)
                } else {
                    pendingCumulative = (counts.count, cumulative)
                    pendingParts = event.cumulativeUsage.map { ($0, price) }
                    counts.append(
                        at: at, spent: CodexCollector.spent(event.cumulativeUsage, total: cumulative), model: answering,
                        cost: cost(event.cumulativeUsage), signature: signature)
                }
            }
            if let cumulative = event.cumulativeTokens {
                lastCumulative = cumulative
                lastCumulativeParts = event.cumulativeUsage
            }
        }
        guard let limits = event.limits, latest.map({ at > $0.at }) ?? true else { return }
        if let classified = CodexCollector.classify(limits, at: at) {
            latest = classified
            CodexCollector.keep(
                CodexCollector.LimitSample(at: at, session: classified.session, weekly: classified.weekly), in: &trail)
        }
    }
}
