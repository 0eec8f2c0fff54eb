import Portable
import Pricing
import Serialization
import Snapshots

/// What this machine's Claude Code logs say: tokens and cost per UTC day, and a session window that a
/// "usage limit reached" message marks as used up (`publish --source claude[:CONFIG_DIR]`).
///
/// Reads `projects/**/*.jsonl` under each config folder. One API response can be logged over several
/// lines (one per content block, streamed) with the same `message.id`, output tokens growing: it is
/// counted once, as its last line in the file says (first-wins undercounted output). A sub-agent's file
/// may replay a parent's message under a new `requestId`: the message id decides, and the parent's
/// line stands. A line with neither id is a response of its own. Tokens are input + output + cache
/// creation + cache read; cost is the line's
/// `costUSD` when it has one, else the price table (`Pricing`). Logs alone do not tell how much of a
/// window is used, so the session window appears only while a limit message's reset time (or, for a
/// message without one, the end of its 5-hour block) is ahead.
public struct ClaudeCollector: Sendable {
    public let folders: [String]
    /// The zones limit messages are read in: a message names its zone, else it is the machine's.
    public let zones: Zones
    /// What responses without a cost of their own are priced by.
    public let prices: PriceSource

    public init(folders: [String], zones: Zones = .utc, prices: PriceSource = .bundled) {
        self.folders = folders
        self.zones = zones
        self.prices = prices
    }

    /// `$CLAUDE_CONFIG_DIR`, else those of `~/.config/claude` and `~/.claude` that exist.
    public static func defaultFolders(environment: [String: String]) -> [String] {
        if let folder = environment["CLAUDE_CONFIG_DIR"], !folder.isEmpty { return [folder] }
        let home = environment["HOME"] ?? FileSystem.homeDirectory()
        return [home + "/.config/claude", home + "/.claude"].filter { FileManager.default.fileExists(atPath: $0) }
    }

    /// What one file holds: its responses in order, and the latest limit reset it announces.
    struct FileScan: Sendable {
        /// One logged response, priced when it was read.
        struct Response: Sendable {
            /// The response's key (`ClaudeEventDecoder.responseKey`), its top bit set for a side-chain line,
            /// the next for a sub-agent's message reported on its parent's `agent_progress` line.
            var key: UInt64
            var at: Date
            var costUSD: Double
            /// `ClaudeEventDecoder.Usage.request`: which request of the message the line answers.
            var request: UInt64 = 0
            /// The model that answered, numbered in its file (`FileScan.models`).
            var model: UInt32 = 0
            var spent = SpentTokens()

            var tokens: Int { spent.total }

            static let sidechainBit: UInt64 = 1 << 63
            static let progressBit: UInt64 = 1 << 62

            /// Which response the line belongs to; 0 for none (a line of its own).
            var identity: UInt64 { key & ~(Self.sidechainBit | Self.progressBit) }
            /// Which of several lines of one response stands: the main chain's (2) over a sub-agent
            /// file's replay (1) over a progress report of it (0).
            var rank: UInt8 { key & Self.progressBit != 0 ? 0 : key & Self.sidechainBit != 0 ? 1 : 2 }
        }

        /// The responses since the cutoff: older ones are never reported, and would grow with the history.
        var responses: [Response] = []
        /// The models the responses name, by their number.
        var models: [String] = []
        /// The newest response's time, whether or not it is kept.
        var newest: Date?
        var limitResetsAt: Date?
        /// The latest limit message that gave no reset time it could be read from.
        var limitReachedAt: Date?
        /// The latest reset time of a weekly limit message ("You've hit your weekly limit · resets ...").
        var weeklyResetsAt: Date?
        /// When the newest limit message of any wording was written.
        var limitMessageAt: Date?
        /// A model's own weekly limit ("You've hit your Opus limit"): the latest reset per model, or the
        /// message's time when it gave none (`modelLimitsAt`).
        var modelResets: [String: Date] = [:]
        var modelLimitsAt: [String: Date] = [:]
        /// The latest spend-limit message ("monthly spend limit", "individual spend limit", "contact
        /// your admin"): what it says is reached, and when.
        var spendLimit: (at: Date, what: String)?
        /// Each limit message with a reset time: the window's history the logs hold (`LimitHit`).
        var hits: [LimitHit] = []
    }

    /// Everything read, de-duplicated.
    struct Scan {
        /// Each response counted so far, by identity: where it came from and what it added, so that a
        /// later line of the same file (a streamed response's whole last line) or a main-chain line
        /// after a side chain's replay replaces it.
        var seen: [UInt64: Counted] = [:]
        /// The main chain's further requests of a message in `seen` (CodexBar's "claude counts different
        /// request ids separately": one message id, two `requestId`s, both count), by message and request.
        var otherRequests: [MessageRequest: Counted] = [:]
        /// Files added so far: the index of the next.
        var files: Int32 = 0

        struct MessageRequest: Hashable {
            var message: UInt64
            var request: UInt64
        }

        struct Counted {
            var file: Int32
            var request: UInt64 = 0
            /// `Response.rank`: which line of a response stands.
            var rank: UInt8
            var at: Date
            /// The model's number in `spend`.
            var model: UInt32
            var spent: SpentTokens
            var costUSD: Double
        }
        /// What the counted responses spent, by hour and model.
        var spend = HourlySpend()
        var newest: Date?
        /// The latest reset time announced by a "usage limit reached" message.
        var limitResetsAt: Date?
        var limitReachedAt: Date?
        var weeklyResetsAt: Date?
        var limitMessageAt: Date?
        var modelResets: [String: Date] = [:]
        var modelLimitsAt: [String: Date] = [:]
        var spendLimit: (at: Date, what: String)?
        var hits: [LimitHit] = []
        /// The times of the responses since `since`, for the current 5-hour block.
        var recentTimes: [Double] = []
        var since = -Double.infinity

        mutating func add(_ file: FileScan) {
            limitResetsAt.raise(to: file.limitResetsAt)
            limitReachedAt.raise(to: file.limitReachedAt)
            weeklyResetsAt.raise(to: file.weeklyResetsAt)
            limitMessageAt.raise(to: file.limitMessageAt)
            ClaudeCollector.raise(&modelResets, &modelLimitsAt, &spendLimit, with: file)
            for hit in file.hits { ClaudeCollector.keep(hit, in: &hits) }
            newest.raise(to: file.newest)
            let index = files
            files += 1
            let models = file.models.map { spend.model($0) }
            for response in file.responses {
                let identity = response.identity
                let model = Int(response.model) < models.count ? models[Int(response.model)] : spend.model("unknown")
                if identity != 0 {
                    let counted = Counted(
                        file: index, request: response.request, rank: response.rank, at: response.at, model: model,
                        spent: response.spent, costUSD: response.costUSD)
                    if let earlier = seen[identity], earlier.rank == 2, response.rank == 2, earlier.request != 0,
                        response.request != 0, earlier.request != response.request
                    {
                        // Another request of the message on the main chain: a response of its own, its
                        // streamed lines settled as any response's.
                        let key = MessageRequest(message: identity, request: response.request)
                        if let other = otherRequests[key] {
                            guard other.file == index else { continue }
                            count(other, sign: -1)
                        }
                        otherRequests[key] = counted
                    } else if let earlier = seen[identity] {
                        // Within one file the later line of a kind is the whole response; the main chain's
                        // line stands over a side chain's replay, which stands over a progress report
                        // (usage reported on `agent_progress` counts where no sub-agent file carries
                        // it); and otherwise the first.
                        let replaces =
                            response.rank > earlier.rank || (earlier.file == index && response.rank == earlier.rank)
                        guard replaces else { continue }
                        count(earlier, sign: -1)
                        seen[identity] = counted
                    } else {
                        seen[identity] = counted
                    }
                }
                if response.at.timeIntervalSince1970 >= since { recentTimes.append(response.at.timeIntervalSince1970) }
                count(
                    Counted(
                        file: index, rank: 2, at: response.at, model: model, spent: response.spent,
                        costUSD: response.costUSD), sign: 1)
            }
        }

        /// Adds a response's tokens and cost to its hour, or takes them off again. An unpriced response
        /// (NaN) adds no cost: an hour of only unpriced responses has none.
        private mutating func count(_ counted: Counted, sign: Int) {
            spend.add(
                hour: HourlySpend.hour(of: counted.at), model: counted.model, tokens: counted.spent,
                cost: counted.costUSD, sign: sign)
        }

        /// Adds lines as one file (for tests and callers holding bytes).
        mutating func read(_ bytes: UnsafeRawBufferPointer, reading: LogReading = LogReading(zones: .utc)) {
            var file = FileScan()
            file.read(bytes, reading: reading)
            add(file)
        }
    }

    /// Reads the logs into one provider entry.
    ///
    /// - Parameter stateFolder: where to keep what was read, so the next run reads only what was appended
    ///   since (nil: read everything, keep nothing).
    /// - Parameter statusLineFolder: where `aggctl statusline` keeps the official figures (only read);
    ///   by default the state folder.
    public func collect(
        now: Date, stateFolder: String? = nil, readerVersion: String = "", statusLineFolder: String? = nil
    ) throws -> ProviderUsage {
        try gather(now: now, stateFolder: stateFolder, readerVersion: readerVersion, statusLineFolder: statusLineFolder)
            .usage
    }

    /// `collect`, with what the logs say was spent by hour and model: the ledger's rows.
    public func gather(
        now: Date, stateFolder: String? = nil, readerVersion: String = "", statusLineFolder: String? = nil
    ) throws -> Collected {
        let files = try logFiles()
        let statePath = stateFolder.map {
            LogScanState<FileScan>.path(in: $0, name: "claude", root: folders.joined(separator: "\n"))
        }
        // Nothing changed since the last run: its combination stands, read back whole.
        let memoPath = statePath.map { $0 + ".memo" }
        let fingerprint = memoPath == nil ? nil : LogScanMemo.fingerprint(of: files)
        var scan: Scan
        var fromMemo = false
        if let memoPath, let fingerprint,
            let memo = LogScanMemo.load(
                Scan.self, from: memoPath, fingerprint: fingerprint, readerVersion: readerVersion)
        {
            scan = memo
            fromMemo = true
        } else {
            // Files are read on every core; their responses are then counted once, in file order.
            // A run of activity with no 5-hour gap for a week is not a real person's; it bounds what is sorted.
            scan = Scan()
            scan.since = now.timeIntervalSince1970 - 7 * 86_400
            let partials = try LogScanState<FileScan>.partials(
                of: files, statePath: statePath, readerVersion: readerVersion,
                keepingSince: Self.windowStart(now: now), reading: LogReading(zones: zones, prices: prices))
            // Room for every response at once: growing the table as files come rehashed it a dozen times.
            scan.seen.reserveCapacity(partials.reduce(0) { $0 + $1.responses.count })
            for file in partials { scan.add(file) }
            if let memoPath, let fingerprint {
                LogScanMemo.save(scan, to: memoPath, fingerprint: fingerprint, readerVersion: readerVersion)
            }
        }
        let figures = scan.spend.recordFigures(now: now)
        var entry = ProviderUsage(
            providerID: "claude", lastUpdated: scan.newest ?? now, tokens: figures.tokens, costUSD: figures.cost)
        var resetsAt = scan.limitResetsAt.flatMap { $0 > now ? $0 : nil }
        // A limit message without a time lasts until the end of the block it was written in.
        if let reachedAt = scan.limitReachedAt,
            let blockEnd = Self.blockEnd(times: scan.recentTimes.sorted(), now: now.timeIntervalSince1970),
            reachedAt.timeIntervalSince1970 >= blockEnd - Self.blockSeconds,
            resetsAt.map({ $0.timeIntervalSince1970 < blockEnd }) ?? true
        {
            resetsAt = Date(timeIntervalSince1970: blockEnd)
        }
        if let resetsAt {
            entry.session = UsageWindow(usedPercent: 100, windowMinutes: 300, resetsAt: resetsAt)
        }
        if let weekly = scan.weeklyResetsAt, weekly > now {
            entry.weekly = UsageWindow(usedPercent: 100, windowMinutes: 10_080, resetsAt: weekly)
        }
        entry.modelWeekly = Self.modelWindows(scan, now: now)
        (entry.sessionSamples, entry.weeklySamples) = Self.samples(scan.hits, until: min(now, entry.lastUpdated))
        // Reached, and not used since (a response after the message means paid use goes on).
        if let spend = scan.spendLimit, spend.at > (scan.newest ?? .distantPast),
            now.timeIntervalSince(spend.at) < 31 * 86_400
        {
            entry.error = "\(spend.what) reached (\(RFC3339.format(spend.at)))"
        }
        // The official figures Claude Code last handed `aggctl statusline` are exact: they stand for a
        // window unless a limit message came after them (it says the window is used up).
        if let official = (statusLineFolder ?? stateFolder).flatMap(ClaudeStatusLine.load(from:)), official.at <= now {
            let newerThanLimits = scan.limitMessageAt.map { $0 < official.at } ?? true
            if let session = official.session, entry.session == nil || newerThanLimits { entry.session = session }
            if let weekly = official.weekly, entry.weekly == nil || newerThanLimits { entry.weekly = weekly }
            // A model's week handed over stands for the one the logs' limit messages suggest.
            for limit in official.limits
            where newerThanLimits || !(entry.limits ?? []).contains(where: { $0.id == limit.id }) {
                entry.modelWeekly?.removeAll { Limit(modelWeekly: $0).id == limit.id }
                entry.limits = (entry.limits ?? []).filter { $0.id != limit.id } + [limit]
            }
            entry.lastUpdated = max(entry.lastUpdated, official.at)
        }
        let spend = scan.spend
        return Collected(
            usage: entry, ledgerFingerprint: fromMemo ? LogScanMemo.ledgerFingerprint(fingerprint, readerVersion) : nil,
            rows: { spend.rows(providerID: "claude", accountEmail: nil, reportsReasoning: false) })
    }
}

extension ClaudeCollector {
    /// Every `projects/**/*.jsonl` under the folders (in no particular order: see `DirectoryWalk`).
    /// - Throws: `CollectorError` naming the folders when there are none (Claude Code not used here).
    func logFiles() throws -> [DirectoryWalk.Found] {
        let files = DirectoryWalk.files(under: folders.map { $0 + "/projects" }) { $0.hasSuffix(".jsonl") }
        guard !files.isEmpty else {
            throw CollectorError(
                "no Claude Code logs in \(folders.isEmpty ? "~/.config/claude or ~/.claude" : folders.map { "'\($0)'" }.joined(separator: ", "))"
            )
        }
        return files
    }

    static let blockSeconds: Double = 5 * 3600

    /// The start of the first UTC day reported (30 days up to today's): older responses never count.
    static func windowStart(now: Date) -> Date {
        Date(timeIntervalSince1970: ((now.timeIntervalSince1970 - 29 * 86_400) / 86_400).rounded(.down) * 86_400)
    }

    /// When the 5-hour block `now` falls in ends, as Claude Code counts blocks: one starts at the whole
    /// hour of the first response after the previous block ended or after five hours without a response,
    /// and lasts five hours. Nil when no block is running at `now`. `times` are sorted.
    static func blockEnd(times: [Double], now: Double) -> Double? {
        var start: Double?
        var last = -Double.infinity
        for time in times where time <= now {
            if let current = start, time < current + blockSeconds, time - last < blockSeconds {
                last = time
                continue
            }
            start = (time / 3600).rounded(.down) * 3600
            last = time
        }
        guard let start, now < start + blockSeconds, now - last < blockSeconds else { return nil }
        return start + blockSeconds
    }
}

extension ClaudeCollector.Scan: LogScanMemo.Summary {
    // 2: the counting of streamed, side-chain and id-less lines changed.
    // 5: a message's further requests on the main chain count. 6: limit messages kept as history.
    // 7: an unpriced response adds no cost to its day.
    // 8: sums by hour and model.
    static var memoMagic: String { "AGGCLME8" }

    func encode(into out: inout BinaryWriter) {
        spend.encode(into: &out)
        for date in [newest, limitResetsAt, limitReachedAt, weeklyResetsAt, limitMessageAt] { out.optionalDate(date) }
        out.double(since)
        out.u32(UInt32(recentTimes.count))
        for time in recentTimes { out.double(time) }
        ClaudeCollector.encodeLimits(modelResets, modelLimitsAt, spendLimit, into: &out)
        ClaudeCollector.encodeHits(hits, into: &out)
    }

    static func decode(from input: inout BinaryReader) throws -> Self {
        var scan = Self()
        scan.spend = try HourlySpend.decode(from: &input)
        scan.newest = try input.optionalDate()
        scan.limitResetsAt = try input.optionalDate()
        scan.limitReachedAt = try input.optionalDate()
        scan.weeklyResetsAt = try input.optionalDate()
        scan.limitMessageAt = try input.optionalDate()
        scan.since = try input.double()
        scan.recentTimes = try input.doubles(Int(try input.u32()))
        (scan.modelResets, scan.modelLimitsAt, scan.spendLimit) = try ClaudeCollector.decodeLimits(from: &input)
        scan.hits = try ClaudeCollector.decodeHits(from: &input)
        return scan
    }
}
