import CShims
import Foundation
import Snapshots

/// What this machine's Codex CLI logs say: the newest rate limits (session and weekly windows), tokens
/// per UTC day, and the account from `auth.json` (`publish --source codex[:CODEX_HOME]`).
///
/// Reads `sessions/**/rollout-*.jsonl` and `archived_sessions/**/rollout-*.jsonl`; only lines holding a
/// `"token_count"` event are parsed (found with `memmem`). Tolerates the older `rate_limits` shapes
/// (`resets_in_seconds`; flat `primary_used_percent`) and `null` info or limits, as real logs have them.
public struct CodexCollector: Sendable {
    public let home: String

    public init(home: String) {
        self.home = home
    }

    /// `$CODEX_HOME`, else `~/.codex`.
    public static func defaultHome(environment: [String: String]) -> String {
        if let home = environment["CODEX_HOME"], !home.isEmpty { return home }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.codex"
    }

    /// The rate limits of one event, as the provider reported them.
    struct RateLimits: Equatable {
        var at: Date
        var primary: UsageWindow?
        var secondary: UsageWindow?
        var plan: String?
    }

    /// Everything read from the logs: the newest rate limits and the tokens per UTC day.
    struct Scan {
        var latest: RateLimits?
        var tokensByDay: [String: Int] = [:]
        var newestEvent: Date?

        mutating func add(_ other: Scan) {
            if let limits = other.latest, latest.map({ limits.at > $0.at }) ?? true { latest = limits }
            for (day, tokens) in other.tokensByDay { tokensByDay[day, default: 0] += tokens }
            newestEvent.raise(to: other.newestEvent)
        }
    }

    /// Reads the logs and `auth.json` into one provider entry.
    ///
    /// - Parameter stateFolder: where to keep what was read, so the next run reads only what was appended
    ///   since (nil: read everything, keep nothing).
    /// - Throws: `CollectorError` when `home` has no `sessions` folder at all (Codex not used here).
    public func collect(now: Date, stateFolder: String? = nil, readerVersion: String = "") throws -> ProviderUsage {
        let files = try logFiles()
        // Files are independent: read on every core, then combined (newest limits win).
        var scan = Scan()
        for partial in try LogScanState<Scan>.partials(
            of: files,
            statePath: stateFolder.map { LogScanState<Scan>.path(in: $0, name: "codex", root: home) },
            readerVersion: readerVersion)
        {
            scan.add(partial)
        }
        let account = accountFromAuth()
        let today = RFC3339.utcDay(now)
        let firstDay = RFC3339.utcDay(now.addingTimeInterval(-29 * 86_400))
        let recent = scan.tokensByDay.filter { $0.key >= firstDay && $0.key <= today }
        var entry = ProviderUsage(
            providerID: "codex", accountEmail: account.email, plan: account.plan ?? scan.latest?.plan,
            lastUpdated: scan.latest?.at ?? scan.newestEvent ?? now, session: scan.latest?.primary,
            weekly: scan.latest?.secondary,
            tokens: TokenUsage(
                today: scan.tokensByDay[today] ?? 0, last30Days: recent.values.reduce(0, +),
                daily: recent.keys.sorted().map { DailyTokens(date: $0, tokens: recent[$0]!) }))
        if scan.latest == nil { entry.error = "no rate limits in the Codex logs yet" }
        return entry
    }

    func logFiles() throws -> [String] {
        let sessions = home + "/sessions"
        guard FileManager.default.fileExists(atPath: sessions) else {
            throw CollectorError("no Codex logs in '\(home)': '\(sessions)' does not exist")
        }
        return [sessions, home + "/archived_sessions"].flatMap { folder in
            DirectoryWalk.files(under: folder) { $0.hasPrefix("rollout-") && $0.hasSuffix(".jsonl") }
        }.sorted()
    }

    static func scan(bytes: UnsafeRawBufferPointer) -> Scan {
        var scan = Scan()
        guard let base = bytes.baseAddress, bytes.count > 0 else { return scan }
        let marker = Array("\"token_count\"".utf8)
        var offset = 0
        while offset < bytes.count {
            let found = marker.withUnsafeBytes { needle in
                aggctl_memmem(base + offset, bytes.count - offset, needle.baseAddress, needle.count)
            }
            guard let found else { break }
            let hit = base.distance(to: UnsafeRawPointer(found))
            var start = hit
            while start > 0 && bytes[start - 1] != 0x0A { start -= 1 }
            var end = hit
            while end < bytes.count && bytes[end] != 0x0A { end += 1 }
            if let event = CodexEventDecoder.decode(UnsafeRawBufferPointer(rebasing: bytes[start..<end])) {
                scan.record(event)
            }
            offset = end + 1
        }
        return scan
    }
}

extension CodexCollector.Scan: LogScanPartial {
    static var magic: String { "AGGCODEX" }

    mutating func append(_ later: Self) { add(later) }

    /// Codex keeps sums per day, a few bytes a day: nothing is left out.
    static func read(_ bytes: UnsafeRawBufferPointer, keepingSince cutoff: Date) -> Self {
        CodexCollector.scan(bytes: bytes)
    }

    mutating func prune(before cutoff: Date) -> Bool { false }

    func encode(into out: inout BinaryWriter) {
        out.optional(latest) { out, limits in
            out.date(limits.at)
            out.optional(limits.primary) { $0.window($1) }
            out.optional(limits.secondary) { $0.window($1) }
            out.optionalString(limits.plan)
        }
        out.u32(UInt32(tokensByDay.count))
        for (day, tokens) in tokensByDay {
            out.string(day)
            out.int(tokens)
        }
        out.optionalDate(newestEvent)
    }

    static func decode(from input: inout BinaryReader) throws -> Self {
        var scan = Self()
        scan.latest = try input.optional { reader in
            CodexCollector.RateLimits(
                at: try reader.date(), primary: try reader.optional { try $0.window() },
                secondary: try reader.optional { try $0.window() }, plan: try reader.optionalString())
        }
        for _ in 0..<Int(try input.u32()) {
            let day = try input.string()
            scan.tokensByDay[day] = try input.int()
        }
        scan.newestEvent = try input.optionalDate()
        return scan
    }

    /// Adds one log line's event, when it is a token count.
    mutating func record(_ event: CodexEventDecoder.Event) {
        let at = event.at
        newestEvent.raise(to: at)
        if let total = event.totalTokens {
            tokensByDay[RFC3339.utcDay(at), default: 0] += total
        }
        guard let limits = event.limits, latest.map({ at > $0.at }) ?? true else { return }
        // Resets given as seconds from the event count from its whole second, as Codex computes them.
        let eventSecond = at.timeIntervalSince1970.rounded(.down)
        func window(_ value: CodexEventDecoder.Window?, minutes: Int) -> UsageWindow? {
            guard let value, let used = value.used else { return nil }
            var resetsAt: Date?
            if let epoch = value.resetsAt {
                resetsAt = Date(timeIntervalSince1970: epoch)
            } else if let seconds = value.resetsInSeconds {
                resetsAt = Date(timeIntervalSince1970: eventSecond + seconds)
            }
            return UsageWindow(usedPercent: used, windowMinutes: value.minutes ?? minutes, resetsAt: resetsAt)
        }
        var primary = window(limits.primary, minutes: 300)
        var secondary = window(limits.secondary, minutes: 10080)
        if primary == nil, let used = limits.flatPrimaryUsed {
            primary = UsageWindow(usedPercent: used, windowMinutes: limits.flatPrimaryMinutes ?? 300)
        }
        if secondary == nil, let used = limits.flatSecondaryUsed {
            secondary = UsageWindow(usedPercent: used, windowMinutes: limits.flatSecondaryMinutes ?? 10080)
        }
        guard primary != nil || secondary != nil else { return }
        latest = CodexCollector.RateLimits(at: at, primary: primary, secondary: secondary, plan: limits.plan)
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
