import CShims
import Portable
import Snapshots

/// What this machine's Codex CLI logs say: the newest rate limits (session and weekly windows), tokens
/// per UTC day, and the account from `auth.json` (`publish --source codex[:CODEX_HOME]`).
///
/// Reads `sessions/**/rollout-*.jsonl` and `archived_sessions/**/rollout-*.jsonl`; only lines holding a
/// `"token_count"` event are parsed (found with `memmem`). Tolerates the older `rate_limits` shapes
/// (`resets_in_seconds`; flat `primary_used_percent`) and `null` info or limits, as real logs have them.
public struct CodexCollector: Sendable {
    public let home: String
    /// The zone a limit message's "try again at Aug 8th, 2026 8:16 AM" is read in: the machine's.
    public let zones: Zones

    public init(home: String, zones: Zones = .utc) {
        self.home = home
        self.zones = zones
    }

    /// `$CODEX_HOME`, else `~/.codex`.
    public static func defaultHome(environment: [String: String]) -> String {
        if let home = environment["CODEX_HOME"], !home.isEmpty { return home }
        return (environment["HOME"] ?? FileSystem.homeDirectory()) + "/.codex"
    }

    /// The rate limits of one event, classified into windows.
    struct RateLimits: Equatable {
        var at: Date
        var session: UsageWindow?
        var weekly: UsageWindow?
        /// Windows neither about 5 hours nor about a week, under the limit's name.
        var models: [NamedWindow] = []
        var plan: String?
        /// Why the windows show used up although their percentages may not: a limit Codex says is reached.
        var reason: String?
    }

    /// A limit hit as Codex reported it in words (`task_complete` with `usage_limit_exceeded`).
    struct LimitHit: Equatable {
        var at: Date
        /// When Codex said to try again, read from the message; nil when it gave none.
        var until: Date?
    }

    /// Responses of one file: tokens per UTC day (days since 1970), and while needed each response's
    /// moment, day and tokens.
    ///
    /// Kept lean because a machine's history holds hundreds of thousands of responses and the state is
    /// loaded on every run: dictionaries of them made a run with nothing new five times slower. The
    /// per-response columns are kept only for a forked file, whose replayed responses must be left out.
    struct Responses: Equatable, Sendable {
        var sums: [Int32: Int] = [:]
        var moments: [Double] = []
        var days: [Int32] = []
        var tokens: [Int] = []

        var isEmpty: Bool { sums.isEmpty }

        mutating func append(at: Date, tokens count: Int) {
            let day = Int32(clamping: Int((at.timeIntervalSince1970 / 86_400).rounded(.down)))
            sums[day, default: 0].saturatingAdd(count)
            moments.append(at.timeIntervalSince1970)
            days.append(day)
            tokens.append(count)
        }

        mutating func dropColumns() {
            moments = []
            days = []
            tokens = []
        }

        mutating func append(contentsOf other: Responses) {
            for (day, count) in other.sums {
                sums[day, default: 0].saturatingAdd(count)
            }
            moments += other.moments
            days += other.days
            tokens += other.tokens
        }
    }

    /// Everything read from one log file: the newest rate limits, and its responses' tokens.
    ///
    /// A forked session's file (`session_meta.forked_from_id`) begins by replaying its parent's lines,
    /// dated as the parent wrote them, before the fork's own `session_meta`: those responses are the
    /// parent's, counted in its file, and are left out here. One response can be written both as a
    /// `token_count` and as a `token_usage_record`: a file with records counts its records only.
    struct Scan {
        var latest: RateLimits?
        var limitHit: LimitHit?
        var counts = Responses()
        var records = Responses()
        var newestEvent: Date?
        /// When the forked session began (its `session_meta` time); nil for a file that is no fork.
        var forkedAt: Date?
        /// The session's last `total_token_usage`: an event with only that total counts its growth.
        var lastCumulative: Int?
        /// The first total-only event of a piece read with no total before it in the piece: counted when
        /// the piece is added to what came before it in the file (`extend`), against that part's last
        /// total, or from 0 when nothing came before it (`ownSums`: the start of the file).
        var pendingCumulative: (at: Date, total: Int)?

        var isFork: Bool { forkedAt != nil }

        /// The responses this file counts.
        var responses: Responses { records.isEmpty ? counts : records }

        /// Adds what was appended to the same file since.
        mutating func extend(_ later: Scan) {
            mergeLimits(later)
            forkedAt = forkedAt ?? later.forkedAt
            // The later piece's first total counts against this part's last; with none here yet (this
            // part saw no total), it stays pending, for what comes before this part or for the file's start.
            if let pending = later.pendingCumulative {
                if let previous = lastCumulative {
                    if pending.total > previous { counts.append(at: pending.at, tokens: pending.total - previous) }
                } else {
                    pendingCumulative = pending
                }
            }
            lastCumulative = later.lastCumulative ?? lastCumulative
            counts.append(contentsOf: later.counts)
            records.append(contentsOf: later.records)
            // Per-response columns matter only in a forked file (its first line says so).
            if !isFork {
                counts.dropColumns()
                records.dropColumns()
            }
        }

        mutating func mergeLimits(_ other: Scan) {
            if let limits = other.latest, latest.map({ limits.at > $0.at }) ?? true { latest = limits }
            if let hit = other.limitHit, limitHit.map({ hit.at > $0.at }) ?? true { limitHit = hit }
            newestEvent.raise(to: other.newestEvent)
        }

        /// Counts a pending first total from 0: for a scan that begins at its file's start.
        mutating func settlePending() {
            guard let pending = pendingCumulative else { return }
            counts.append(at: pending.at, tokens: pending.total)
            pendingCumulative = nil
        }

        /// Tokens per UTC day of this file's own responses (a fork's replayed ones left out).
        var ownSums: [Int32: Int] {
            var settled = self
            settled.settlePending()
            let responses = settled.responses
            guard let forkedAt else { return responses.sums }
            var sums: [Int32: Int] = [:]
            let start = forkedAt.timeIntervalSince1970
            for index in responses.moments.indices where responses.moments[index] >= start {
                sums[responses.days[index], default: 0].saturatingAdd(responses.tokens[index])
            }
            return sums
        }
    }

    /// The files' scans together: the newest limits, and tokens per UTC day.
    static func combine(_ scans: [Scan]) -> (latest: Scan, tokensByDay: [Int32: Int]) {
        var combined = Scan()
        var byDay: [Int32: Int] = [:]
        for scan in scans {
            combined.mergeLimits(scan)
            for (day, count) in scan.ownSums {
                byDay[day, default: 0].saturatingAdd(count)
            }
        }
        return (combined, byDay)
    }

    /// Reads the logs and `auth.json` into one provider entry.
    ///
    /// - Parameter stateFolder: where to keep what was read, so the next run reads only what was appended
    ///   since (nil: read everything, keep nothing).
    /// - Throws: `CollectorError` when `home` has no `sessions` folder at all (Codex not used here).
    public func collect(now: Date, stateFolder: String? = nil, readerVersion: String = "") throws -> ProviderUsage {
        let files = try logFiles()
        let statePath = stateFolder.map { LogScanState<Scan>.path(in: $0, name: "codex", root: home) }
        // Nothing changed since the last run: its combination stands, read back whole (`LogScanMemo`).
        let memoPath = statePath.map { $0 + ".memo" }
        let fingerprint = memoPath == nil ? nil : LogScanMemo.fingerprint(of: files)
        let scan: Scan
        let days: [Int32: Int]
        if let memoPath, let fingerprint,
            let memo = LogScanMemo.load(
                Scan.self, from: memoPath, fingerprint: fingerprint, readerVersion: readerVersion)
        {
            (scan, days) = (memo, memo.counts.sums)
        } else {
            // Files are independent: read on every core, then combined (newest limits win).
            (scan, days) = Self.combine(
                try LogScanState<Scan>.partials(
                    of: files, statePath: statePath, readerVersion: readerVersion, zones: zones))
            if let memoPath, let fingerprint {
                var memo = scan
                memo.counts = Responses(sums: days)
                LogScanMemo.save(memo, to: memoPath, fingerprint: fingerprint, readerVersion: readerVersion)
            }
        }
        var tokensByDay: [String: Int] = [:]
        for (day, tokens) in days {
            tokensByDay[RFC3339.utcDay(Date(timeIntervalSince1970: Double(day) * 86_400))] = tokens
        }
        let account = accountFromAuth()
        let today = RFC3339.utcDay(now)
        let firstDay = RFC3339.utcDay(now.addingTimeInterval(-29 * 86_400))
        let recent = tokensByDay.filter { $0.key >= firstDay && $0.key <= today }
        let limits = Self.applying(scan.limitHit, to: scan.latest)
        var entry = ProviderUsage(
            providerID: "codex", accountEmail: account.email, plan: account.plan ?? limits?.plan,
            lastUpdated: limits?.at ?? scan.newestEvent ?? now, session: limits?.session,
            weekly: limits?.weekly, modelWeekly: (limits?.models ?? []).isEmpty ? nil : limits?.models,
            tokens: TokenUsage(
                today: tokensByDay[today] ?? 0, last30Days: recent.values.saturatingSum(),
                daily: recent.keys.sorted().map { DailyTokens(date: $0, tokens: recent[$0]!) }))
        entry.error = limits == nil ? "no rate limits in the Codex logs yet" : limits?.reason
        return entry
    }

    /// The newest limits with a later limit hit applied: the window the hit belongs to (the session when
    /// Codex says to try again within a day, else the weekly window) used up until the time it gave.
    static func applying(_ hit: LimitHit?, to latest: RateLimits?) -> RateLimits? {
        guard let hit, latest.map({ hit.at > $0.at }) ?? true else { return latest }
        var limits = latest ?? RateLimits(at: hit.at)
        limits.at = hit.at
        let weeklyHit = hit.until.map { $0.timeIntervalSince(hit.at) > 86_400 } ?? false
        func spent(_ window: UsageWindow?, minutes: Int) -> UsageWindow {
            UsageWindow(
                usedPercent: 100, windowMinutes: window?.windowMinutes ?? minutes,
                resetsAt: hit.until ?? window?.resetsAt)
        }
        if weeklyHit || (limits.session == nil && limits.weekly != nil) {
            limits.weekly = spent(limits.weekly, minutes: 10080)
        } else {
            limits.session = spent(limits.session, minutes: 300)
        }
        let until = hit.until.map { "; try again at \(RFC3339.format($0))" } ?? ""
        limits.reason = "usage limit reached\(until)"
        return limits
    }

    /// The rollouts under `sessions/` and `archived_sessions/` (a home holding only archived sessions is
    /// a Codex home too). An archived copy of an active file, at the same path relative to its folder,
    /// is left out: the active one is the same session, and it may still grow.
    func logFiles() throws -> [DirectoryWalk.Found] {
        let sessions = home + "/sessions"
        let archived = home + "/archived_sessions"
        guard FileManager.default.fileExists(atPath: sessions) || FileManager.default.fileExists(atPath: archived)
        else {
            throw CollectorError("no Codex logs in '\(home)': neither '\(sessions)' nor '\(archived)' exists")
        }
        let isRollout = { (name: String) in name.hasPrefix("rollout-") && name.hasSuffix(".jsonl") }
        let active = DirectoryWalk.files(under: [sessions], where: isRollout)
        // Each archived file looked for among the active ones by its path (archives are the fewer; a set
        // of every active path's text was more than the walk itself, for a run with nothing new).
        let archivedCopies = DirectoryWalk.files(under: [archived], where: isRollout).filter { found in
            guard let relative = String(found.path.utf8.dropFirst(archived.utf8.count)) else { return true }
            var info = stat()
            return stat(sessions + relative, &info) != 0
        }
        return active + archivedCopies
    }

    /// Reads the lines that can matter, found with `memmem`: those holding `"token_` (`token_count`,
    /// `token_usage_record`), and `usage_limit_exceeded` after the last of them. A limit hit before a
    /// later token count of the same file is older than that count's limits, which stand instead (Codex
    /// stops at a limit; its next counts come after the reset): searching only the tail spares a second
    /// pass over gigabytes of logs.
    static func scan(bytes: UnsafeRawBufferPointer, zones: Zones = .utc) -> Scan {
        var scan = Scan()
        var tail = 0
        // One pass for both kinds: a second, with the longer needles, cost more than it saved.
        forEachLine(containing: "\"token_", in: bytes) { line in
            if let event = CodexEventDecoder.decode(line) { scan.record(event, zones: zones) }
            if let start = line.baseAddress, let base = bytes.baseAddress {
                tail = base.distance(to: start) + line.count
            }
        }
        forEachLine(containing: "usage_limit_exceeded", in: UnsafeRawBufferPointer(rebasing: bytes[tail...])) { line in
            if let event = CodexEventDecoder.decode(line) { scan.record(event, zones: zones) }
        }
        // A forked session says so in its `session_meta`, its first line.
        let head = UnsafeRawBufferPointer(rebasing: bytes[0..<min(bytes.count, 65_536)])
        forEachLine(containing: "\"forked_from_id\"", in: head) { line in
            if let at = CodexEventDecoder.forkedSessionStart(line) { scan.forkedAt = scan.forkedAt ?? at }
        }
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

/// The memo of all files combined: the newest limits, and the tokens per day as `counts.sums`.
extension CodexCollector.Scan: LogScanMemo.Summary {
    // 2: events with only a total counted by its growth.
    static var memoMagic: String { "AGGCXME2" }
}

extension CodexCollector.Scan: LogScanPartial {
    // 6: the session's last total and a piece's pending first total kept.
    static var magic: String { "AGGCODX6" }

    mutating func append(_ later: Self) { extend(later) }

    /// Codex keeps a few bytes per response: nothing is left out.
    static func read(_ bytes: UnsafeRawBufferPointer, keepingSince cutoff: Date, zones: Zones) -> Self {
        CodexCollector.scan(bytes: bytes, zones: zones)
    }

    mutating func prune(before cutoff: Date) -> Bool { false }

    func encode(into out: inout BinaryWriter) {
        out.optional(latest) { out, limits in
            out.date(limits.at)
            out.optional(limits.session) { $0.window($1) }
            out.optional(limits.weekly) { $0.window($1) }
            out.u32(UInt32(limits.models.count))
            for model in limits.models {
                out.string(model.name)
                out.window(model.window)
            }
            out.optionalString(limits.plan)
            out.optionalString(limits.reason)
        }
        out.optional(limitHit) { out, hit in
            out.date(hit.at)
            out.optionalDate(hit.until)
        }
        out.optionalDate(forkedAt)
        for responses in [counts, records] {
            out.u32(UInt32(responses.sums.count))
            for (day, count) in responses.sums {
                out.u32(UInt32(bitPattern: day))
                out.int(count)
            }
            // A forked file's responses one by one, as raw little-endian columns (loading them is a copy).
            let count = isFork ? responses.moments.count : 0
            out.u32(UInt32(count))
            if count > 0 {
                responses.moments.withUnsafeBytes { out.raw($0) }
                responses.days.withUnsafeBytes { out.raw($0) }
                responses.tokens.withUnsafeBytes { out.raw($0) }
            }
        }
        out.optionalDate(newestEvent)
        out.optional(lastCumulative) { $0.int($1) }
        out.optional(pendingCumulative) { out, pending in
            out.date(pending.at)
            out.int(pending.total)
        }
    }

    static func decode(from input: inout BinaryReader) throws -> Self {
        var scan = Self()
        scan.latest = try input.optional { reader in
            var limits = CodexCollector.RateLimits(
                at: try reader.date(), session: try reader.optional { try $0.window() },
                weekly: try reader.optional { try $0.window() })
            limits.models = try (0..<(try reader.count())).map { _ in
                NamedWindow(name: try reader.string(), window: try reader.window())
            }
            limits.plan = try reader.optionalString()
            limits.reason = try reader.optionalString()
            return limits
        }
        scan.limitHit = try input.optional { reader in
            CodexCollector.LimitHit(at: try reader.date(), until: try reader.optionalDate())
        }
        func column<Element>(_ count: Int, _ type: Element.Type) throws -> [Element] {
            let bytes = try input.take(count * MemoryLayout<Element>.stride)
            return [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: bytes)
                initialized = count
            }
        }
        scan.forkedAt = try input.optionalDate()
        for kind in 0..<2 {
            var responses = CodexCollector.Responses()
            for _ in 0..<Int(try input.u32()) {
                let day = Int32(bitPattern: try input.u32())
                responses.sums[day] = try input.int()
            }
            let count = Int(try input.u32())
            if count > 0 {
                responses.moments = try column(count, Double.self)
                responses.days = try column(count, Int32.self)
                responses.tokens = try column(count, Int.self)
            }
            if kind == 0 { scan.counts = responses } else { scan.records = responses }
        }
        scan.newestEvent = try input.optionalDate()
        scan.lastCumulative = try input.optional { try $0.int() }
        scan.pendingCumulative = try input.optional { reader in (try reader.date(), try reader.int()) }
        return scan
    }

    /// Adds one log line's event.
    mutating func record(_ event: CodexEventDecoder.Event, zones: Zones) {
        let at = event.at
        newestEvent.raise(to: at)
        switch event.kind {
        case .usageRecord:
            if let total = event.totalTokens { records.append(at: at, tokens: total) }
            return
        case .limitHit:
            if limitHit.map({ at > $0.at }) ?? true {
                limitHit = CodexCollector.LimitHit(
                    at: at,
                    until: event.message.flatMap { CodexLimitMessage.retryTime(in: $0, after: at, zones: zones) })
            }
            return
        case .tokenCount:
            if let total = event.totalTokens {
                counts.append(at: at, tokens: total)
            } else if let cumulative = event.cumulativeTokens {
                // Only the session's total: what it grew by since the last (ccusage counts the same).
                if let previous = lastCumulative {
                    if cumulative > previous { counts.append(at: at, tokens: cumulative - previous) }
                } else {
                    pendingCumulative = (at, cumulative)
                }
            }
            if let cumulative = event.cumulativeTokens { lastCumulative = cumulative }
        }
        guard let limits = event.limits, latest.map({ at > $0.at }) ?? true else { return }
        if let classified = CodexCollector.classify(limits, at: at) { latest = classified }
    }
}

extension CodexCollector {
    /// A window length that is the session's (5 hours; anything up to a day).
    static let sessionMinutes = 1...1440
    /// About a week: 4 to 10 days.
    static let weeklyMinutes = (4 * 1440)...(10 * 1440)

    /// The windows of one `rate_limits` object, told apart by `window_minutes` (a weekly-only plan
    /// writes its week as `primary`), by field name only where no length is given; a window of another
    /// length goes to the per-model windows under the limit's name. A reached limit
    /// (`rate_limit_reached_type`, `spend_control_reached`) shows its window, or every window for the
    /// account, used up, with the reason.
    /// Windows by their length: the first of about 5 hours is the session, the first of about a week the
    /// weekly window, any other goes to the per-model windows under `limitName` (or its field and length).
    /// A window without a length takes its field's usual one (`fallbackMinutes`).
    static func place(_ windows: [(field: String, window: UsageWindow, fallbackMinutes: Int)], limitName: String?) -> (
        session: UsageWindow?, weekly: UsageWindow?, models: [NamedWindow]
    ) {
        var result: (session: UsageWindow?, weekly: UsageWindow?, models: [NamedWindow]) = (nil, nil, [])
        for (field, found, fallbackMinutes) in windows {
            var window = found
            let minutes = window.windowMinutes ?? fallbackMinutes
            window.windowMinutes = minutes
            if sessionMinutes.contains(minutes), result.session == nil {
                result.session = window
            } else if weeklyMinutes.contains(minutes), result.weekly == nil {
                result.weekly = window
            } else {
                let name = limitName.map { $0 == "codex" ? "\($0) \(field)" : $0 } ?? "\(minutes)-minute \(field)"
                result.models.append(NamedWindow(name: name, window: window))
            }
        }
        return result
    }

    static func classify(_ limits: CodexEventDecoder.Limits, at: Date) -> RateLimits? {
        // Resets given as seconds from the event count from its whole second, as Codex computes them.
        let eventSecond = at.timeIntervalSince1970.rounded(.down)
        func window(_ value: CodexEventDecoder.Window?, flatUsed: Double?, flatMinutes: Int?) -> UsageWindow? {
            guard let used = value?.used ?? flatUsed else { return nil }
            var resetsAt: Date?
            if let epoch = value?.resetsAt {
                resetsAt = Date(timeIntervalSince1970: epoch)
            } else if let seconds = value?.resetsInSeconds {
                resetsAt = Date(timeIntervalSince1970: eventSecond + seconds)
            }
            return UsageWindow(usedPercent: used, windowMinutes: value?.minutes ?? flatMinutes, resetsAt: resetsAt)
        }
        let reached = limits.reachedType.map { $0.lowercased() }
        // A window named by its length ("weekly") uses up that window only, wherever it was placed.
        let reachedWindow: String? =
            switch reached {
            case "weekly", "week", "seven_day": "weekly"
            case "session", "five_hour": "session"
            default: nil
            }
        let accountSpent =
            (reached != nil && reached != "primary" && reached != "secondary" && reachedWindow == nil)
            || limits.spendControlReached == true
        var result = RateLimits(at: at, plan: limits.plan)
        let fields: [(String, UsageWindow?, Int)] = [
            (
                "primary",
                window(limits.primary, flatUsed: limits.flatPrimaryUsed, flatMinutes: limits.flatPrimaryMinutes), 300
            ),
            (
                "secondary",
                window(limits.secondary, flatUsed: limits.flatSecondaryUsed, flatMinutes: limits.flatSecondaryMinutes),
                10080
            ),
        ]
        let placed = place(
            fields.compactMap { field, found, fallback in
                found.map { window in
                    var window = window
                    if accountSpent || reached == field { window.usedPercent = 100 }
                    return (field, window, fallback)
                }
            }, limitName: limits.limitName ?? limits.limitID)
        result.session = placed.session
        result.weekly = placed.weekly
        result.models = placed.models
        if reachedWindow == "weekly" { result.weekly?.usedPercent = 100 }
        if reachedWindow == "session" { result.session?.usedPercent = 100 }
        guard result.session != nil || result.weekly != nil || !result.models.isEmpty else { return nil }
        if let reached {
            let named = reached == "primary" || reached == "secondary" || reachedWindow != nil
            result.reason = "Codex reports the \(named ? "\(reachedWindow ?? reached) limit" : reached) reached"
        } else if limits.spendControlReached == true {
            result.reason = "Codex reports the spend control reached"
        }
        return result
    }
}

extension CodexCollector {
    /// The account e-mail and plan from `auth.json`'s `id_token`, read without verifying it.
    func accountFromAuth() -> (email: String?, plan: String?) {
        Self.account(inAuth: JSONValue.read(contentsOf: home + "/auth.json"))
    }

    /// The account e-mail and plan from a parsed `auth.json`, for callers that read it for more.
    static func account(inAuth auth: JSONValue?) -> (email: String?, plan: String?) {
        guard let token = auth?["tokens"]?["id_token"]?.string, let claims = JSONWebToken.claims(of: token)
        else { return (nil, nil) }
        return (claims["email"]?.string, claims["https://api.openai.com/auth"]?["chatgpt_plan_type"]?.string)
    }
}

/// Why a collector could not read this machine's logs: one line naming the folder or file.
public struct CollectorError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
