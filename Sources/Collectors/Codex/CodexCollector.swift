import CShims
import Portable
import Pricing
import Serialization
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
    /// What responses are priced by.
    public let prices: PriceSource

    public init(home: String, zones: Zones = .utc, prices: PriceSource = .bundled) {
        self.prices = prices
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
        /// Windows neither about 5 hours nor about a week, as limits.
        var limits: [Limit] = []
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

    /// Reads the logs and `auth.json` into one provider entry.
    ///
    /// - Parameter stateFolder: where to keep what was read, so the next run reads only what was appended
    ///   since (nil: read everything, keep nothing).
    /// - Throws: `CollectorError` when `home` has no `sessions` folder at all (Codex not used here).
    public func collect(now: Date, stateFolder: String? = nil, readerVersion: String = "") throws -> ProviderUsage {
        try gather(now: now, stateFolder: stateFolder, readerVersion: readerVersion).usage
    }

    /// `collect`, with what the logs say was spent by hour and model: the ledger's rows.
    public func gather(now: Date, stateFolder: String? = nil, readerVersion: String = "") throws -> Collected {
        let files = try logFiles()
        let statePath = stateFolder.map { LogScanState<Scan>.path(in: $0, name: "codex", root: home) }
        // Nothing changed since the last run: its combination stands, read back whole (`LogScanMemo`).
        let memoPath = statePath.map { $0 + ".memo" }
        let fingerprint = memoPath == nil ? nil : LogScanMemo.fingerprint(of: files)
        let scan: Scan
        let spend: HourlySpend
        var fromMemo = false
        if let memoPath, let fingerprint,
            let memo = LogScanMemo.load(
                Scan.self, from: memoPath, fingerprint: fingerprint, readerVersion: readerVersion)
        {
            (scan, spend) = (memo, memo.counts.spend)
            fromMemo = true
        } else {
            // Files are independent: read on every core, then combined (newest limits win).
            (scan, spend) = Self.combine(
                try LogScanState<Scan>.partialsByPath(
                    of: files, statePath: statePath, readerVersion: readerVersion,
                    reading: LogReading(zones: zones, prices: prices)
                ).map { (path: $0.path, scan: $0.partial) })
            if let memoPath, let fingerprint {
                var memo = scan
                memo.counts = Responses(spend: spend)
                LogScanMemo.save(memo, to: memoPath, fingerprint: fingerprint, readerVersion: readerVersion)
            }
        }
        let account = accountFromAuth()
        let limits = Self.applying(scan.limitHit, to: scan.latest)
        let figures = spend.recordFigures(now: now)
        var entry = ProviderUsage(
            providerID: "codex", accountEmail: account.email, plan: account.plan ?? limits?.plan,
            lastUpdated: limits?.at ?? scan.newestEvent ?? now, session: limits?.session,
            weekly: limits?.weekly, limits: (limits?.limits ?? []).isEmpty ? nil : limits?.limits,
            tokens: figures.tokens, costUSD: figures.cost)
        entry.error = limits == nil ? "no rate limits in the Codex logs yet" : limits?.reason
        // What the logs hold of the windows' past: taken by the history where it has nothing newer.
        (entry.sessionSamples, entry.weeklySamples) = Self.samples(scan.trail)
        return Collected(
            usage: entry, ledgerFingerprint: fromMemo ? LogScanMemo.ledgerFingerprint(fingerprint, readerVersion) : nil,
            rows: { spend.rows(providerID: "codex", accountEmail: nil, reportsReasoning: true) })
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
