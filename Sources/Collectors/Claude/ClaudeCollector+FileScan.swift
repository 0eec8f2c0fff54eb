import Portable
import Pricing
import Serialization
import Snapshots

/// One Claude Code log file read: its responses and limit messages, kept between runs (`LogScanState`).
extension ClaudeCollector.FileScan: LogScanPartial {
    // 3: responses keyed by message id, the side-chain mark in the key, streamed lines collapsed;
    // 4: models' and spend limits kept; 5: sub-agents' usage on progress lines kept, marked; 6: each
    // response's request kept; 7: limit messages kept as history; 8: an unpriced response's cost NaN;
    // 9: each response's model and tokens by kind (the ledger's rows).
    static var magic: String { "AGGCLAU9" }

    /// The number of `name` among this file's models.
    mutating func model(_ name: String) -> UInt32 {
        if let number = models.firstIndex(of: name) { return UInt32(number) }
        models.append(name)
        return UInt32(models.count - 1)
    }

    /// Appends a response; a line of the response just before (a streamed response's next, fuller line)
    /// takes its place, so the state keeps one entry a response where lines follow each other. Lines
    /// of one response further apart are settled by `Scan.add`.
    mutating func keep(_ response: Response) {
        if let last = responses.last, last.identity != 0, last.identity == response.identity,
            last.request == response.request || min(last.rank, response.rank) < 2
        {
            // A lower-ranked line of the response (a progress report after the line itself) adds nothing.
            if response.rank >= last.rank { responses[responses.count - 1] = response }
        } else {
            responses.append(response)
        }
    }

    mutating func append(_ later: Self) {
        let numbers = later.models.map { model($0) }
        for var response in later.responses {
            response.model = Int(response.model) < numbers.count ? numbers[Int(response.model)] : model("unknown")
            keep(response)
        }
        ClaudeCollector.raise(&modelResets, &modelLimitsAt, &spendLimit, with: later)
        for hit in later.hits { ClaudeCollector.keep(hit, in: &hits) }
        limitResetsAt.raise(to: later.limitResetsAt)
        limitReachedAt.raise(to: later.limitReachedAt)
        weeklyResetsAt.raise(to: later.weeklyResetsAt)
        limitMessageAt.raise(to: later.limitMessageAt)
        newest.raise(to: later.newest)
    }

    static func read(_ bytes: UnsafeRawBufferPointer, keepingSince cutoff: Date, reading: LogReading) -> Self {
        var file = Self()
        file.read(bytes, keepingSince: cutoff, reading: reading)
        return file
    }

    mutating func prune(before cutoff: Date) -> Bool {
        // Checked first: removing from a list shared with the loaded state would copy it in every run.
        guard responses.contains(where: { $0.at < cutoff }) else { return false }
        responses.removeAll { $0.at < cutoff }
        return true
    }

    func encode(into out: inout BinaryWriter) {
        out.u32(UInt32(models.count))
        for model in models { out.string(model) }
        out.u32(UInt32(responses.count))
        // Nine little-endian words a response, made here and written at once: a call into the writer per
        // field was most of saving the state after one log grew.
        var words: [UInt64] = []
        words.reserveCapacity(responses.count * 9)
        for response in responses {
            words.append(response.key.littleEndian)
            words.append(response.at.timeIntervalSinceReferenceDate.bitPattern.littleEndian)
            words.append(response.costUSD.bitPattern.littleEndian)
            words.append(response.request.littleEndian)
            words.append(UInt64(response.model).littleEndian)
            words.append(UInt64(bitPattern: Int64(response.spent.input)).littleEndian)
            words.append(UInt64(bitPattern: Int64(response.spent.output)).littleEndian)
            words.append(UInt64(bitPattern: Int64(response.spent.cacheWrite)).littleEndian)
            words.append(UInt64(bitPattern: Int64(response.spent.cacheRead)).littleEndian)
        }
        words.withUnsafeBytes { out.raw($0) }
        out.optionalDate(limitResetsAt)
        out.optionalDate(limitReachedAt)
        out.optionalDate(weeklyResetsAt)
        out.optionalDate(limitMessageAt)
        out.optionalDate(newest)
        ClaudeCollector.encodeLimits(modelResets, modelLimitsAt, spendLimit, into: &out)
        ClaudeCollector.encodeHits(hits, into: &out)
    }

    static func decode(from input: inout BinaryReader) throws -> Self {
        var file = Self()
        file.models = try (0..<(try input.count())).map { _ in try input.string() }
        // Each response as `encode` writes it: key, time, cost, request, model, then input, output, cache
        // write and cache read, eight bytes each, read in place (a checked read per field was most of an
        // incremental run over a hundred thousand responses).
        let count = Int(try input.u32())
        let size = 9 * 8
        let records = try input.records(count, size: size)
        func word(_ index: Int, _ field: Int) -> UInt64 {
            UInt64(littleEndian: records.loadUnaligned(fromByteOffset: index * size + field * 8, as: UInt64.self))
        }
        // A count below 0 is damage, read as none.
        func tokens(_ index: Int, _ field: Int) -> Int { max(0, Int(Int64(bitPattern: word(index, field)))) }
        let modelCount = UInt64(file.models.count)
        file.responses = (0..<count).map { index in
            Response(
                key: word(index, 0), at: Date(timeIntervalSinceReferenceDate: Double(bitPattern: word(index, 1))),
                costUSD: Double(bitPattern: word(index, 2)), request: word(index, 3),
                model: word(index, 4) < modelCount ? UInt32(word(index, 4)) : 0,
                spent: SpentTokens(
                    input: tokens(index, 5), output: tokens(index, 6), cacheWrite: tokens(index, 7),
                    cacheRead: tokens(index, 8)))
        }
        if count > 0 && modelCount == 0 { file.models = ["unknown"] }
        file.limitResetsAt = try input.optionalDate()
        file.limitReachedAt = try input.optionalDate()
        file.weeklyResetsAt = try input.optionalDate()
        file.limitMessageAt = try input.optionalDate()
        file.newest = try input.optionalDate()
        (file.modelResets, file.modelLimitsAt, file.spendLimit) = try ClaudeCollector.decodeLimits(from: &input)
        file.hits = try ClaudeCollector.decodeHits(from: &input)
        return file
    }

    /// Adds the usage lines and limit messages of a piece of one log file.
    mutating func read(
        _ bytes: UnsafeRawBufferPointer, keepingSince cutoff: Date = .distantPast, reading: LogReading
    ) {
        guard let base = bytes.baseAddress else { return }
        var start = 0
        while start < bytes.count {
            var end = bytes.count
            if let newline = memchr(base + start, 0x0A, bytes.count - start) {
                end = base.distance(to: UnsafeRawPointer(newline))
            }
            let line = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
            var isLimitMessage = false
            if contains(line, "limit reached") || contains(line, "hit your") {
                if let event = JSONValue.parse(line) { isLimitMessage = recordLimit(event, zones: reading.zones) }
            }
            // A limit message is Claude Code's own line, not a response: never priced or counted.
            // A sub-agent's message as its parent's log reports it (`agent_progress`), marked so that the
            // sub-agent's own file, where it has one, stands over it.
            var usage: ClaudeEventDecoder.Usage?
            var mark: UInt64 = 0
            if !isLimitMessage, contains(line, "\"usage\"") {
                if contains(line, "\"agent_progress\""), let progress = ClaudeEventDecoder.decodeProgress(line) {
                    (usage, mark) = (progress, progress.key != 0 ? Response.progressBit : 0)
                } else {
                    usage = ClaudeEventDecoder.decode(line)
                    if let usage, usage.isSidechain, usage.key != 0 { mark = Response.sidechainBit }
                }
            }
            if let usage, usage.model != "<synthetic>" {
                // The agent's own cost as written; else the table's price of the model. A model the
                // table does not name is unpriced (NaN): its tokens count, its cost is no one's 0.
                let cost =
                    usage.costUSD
                    ?? reading.prices.price(of: usage.model ?? "")?.cost(
                        of: TokenCounts(
                            input: usage.input, output: usage.output, cacheWrite: usage.cacheWrite,
                            cacheWriteHour: usage.cacheWriteHour, cacheRead: usage.cacheRead)) ?? .nan
                newest.raise(to: usage.at)
                if usage.at >= cutoff {
                    let spent = SpentTokens(
                        input: usage.input, output: usage.output,
                        cacheWrite: usage.cacheWrite.saturatingAdding(usage.cacheWriteHour), cacheRead: usage.cacheRead)
                    keep(
                        Response(
                            key: usage.key | mark, at: usage.at, costUSD: cost, request: usage.request,
                            model: model(usage.model ?? "unknown"), spent: spent))
                }
            }
            start = end + 1
        }
    }

    private func contains(_ line: UnsafeRawBufferPointer, _ text: StaticString) -> Bool {
        ByteSearch.contains(line, text)
    }

    /// Reads a limit message, in each wording Claude Code has used:
    ///
    /// - "Claude AI usage limit reached|<epoch>" (2025): the session is used up until then;
    /// - "You've hit your limit · resets Jan 30, 11:30am (Asia/Calcutta)", "You've hit your session
    ///   limit · resets 9:50pm (Asia/Saigon)": the session until then;
    /// - "You've hit your weekly limit · resets Sep 15, 3am (Europe/Berlin)": the weekly window until then;
    /// - claude.ai's "You've hit your limit for Claude messages. Limits will reset at 9:30 AM.".
    ///
    /// A time zone named in parentheses comes from the system's tz database, else the machine's. Any
    /// other wording, or a time that cannot be read, is "limit reached without a time": the session used
    /// up until the end of its 5-hour block.
    /// - Returns: whether the line is a limit message.
    @discardableResult
    mutating func recordLimit(_ event: JSONValue, zones: Zones) -> Bool {
        // Claude Code's own error line may come without a `type` (the line ccusage's adapter test reads:
        // rust/crates/ccusage/src/main.rs at 5816e640, `extracts_usage_limit_reset_time_from_raw_line`).
        let isErrorLine = event["isApiErrorMessage"] == .bool(true)
        guard event["type"]?.string == "assistant" || (event["type"] == nil && isErrorLine),
            case .array(let blocks)? = event["message"]?["content"],
            let at = event["timestamp"]?.string.flatMap(RFC3339.parse)
        else { return false }
        // The newer wordings are trusted only on Claude Code's own error lines: a model may well write
        // "you've hit your limit" in an answer.
        let synthetic =
            isErrorLine || event["error"]?.string == "rate_limit"
            || event["message"]?["model"]?.string == "<synthetic>"
        var found = false
        for block in blocks {
            guard let text = block["text"]?.string else { continue }
            if let marker = text.firstRange(of: "limit reached") {
                found = true
                let rest = text[marker.upperBound...]
                // `|0` gives no time (ccusage's test asserts none): the message is read as one without.
                if rest.first == "|", let epoch = Double(rest.dropFirst().prefix { $0.isNumber }), epoch > 0 {
                    let reset = Date(timeIntervalSince1970: epoch)
                    limitResetsAt.raise(to: reset)
                    ClaudeCollector.keep(ClaudeCollector.LimitHit(at: at, resetsAt: reset, isWeekly: false), in: &hits)
                    continue
                }
            } else if synthetic, text.firstRange(ofCaseInsensitive: "hit your") != nil,
                text.firstRange(ofCaseInsensitive: "limit") != nil
            {
                found = true
            } else {
                continue
            }
            let reset = LimitTimeText.time(in: text, after: ["resets ", "reset at "], messageAt: at, zones: zones)
            switch (ClaudeCollector.limitKind(of: text), reset) {
            case (.spend(let what), _):
                // A spend limit stops paid use, not the session: said in the entry's error.
                if spendLimit.map({ at > $0.at }) ?? true { spendLimit = (at, what) }
            case (.model(let name), let reset):
                if let reset { modelResets[name].raise(to: reset) } else { modelLimitsAt[name].raise(to: at) }
            case (.weekly, let reset?):
                weeklyResetsAt.raise(to: reset)
                ClaudeCollector.keep(ClaudeCollector.LimitHit(at: at, resetsAt: reset, isWeekly: true), in: &hits)
            case (.session, let reset?):
                limitResetsAt.raise(to: reset)
                ClaudeCollector.keep(ClaudeCollector.LimitHit(at: at, resetsAt: reset, isWeekly: false), in: &hits)
            case (_, nil): limitReachedAt.raise(to: at)
            }
        }
        if found { limitMessageAt.raise(to: at) }
        return found
    }
}
