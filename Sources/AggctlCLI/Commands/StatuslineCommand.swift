import Aggregator
import Collectors
import Portable
import Snapshots
import TextSafety

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `aggctl statusline`: Claude Code's status-line command.
///
/// Claude Code runs it on every update with a JSON document on stdin; the first line printed is shown.
/// It prints this account's session and weekly windows with pace (the official figures Claude Code
/// handed it, else the store's merge), and the other providers' worst window from the store; and it
/// keeps the official figures for the next `publish --source claude`. It never fails loudly: whatever
/// goes wrong (no store, an unreadable one, no figures), it prints what it can and exits 0.
enum StatuslineCommand {
    static let name: String = "statusline"
    static let summary =
        "One line for Claude Code's status line: this account's windows with pace, and the other providers'."
    static let flags = [CommonFlags.store, CommonFlags.keyFile, CommonFlags.requireEncrypted, CommonFlags.now]
    static let details = """
        Enable it in Claude Code's settings.json (~/.claude/settings.json):
          "statusLine": {"type": "command", "command": "aggctl statusline"}
        Reads Claude Code's document on stdin (rate_limits.five_hour and seven_day), keeps its figures in the
        state directory for `publish --source claude`, and merges the store (--store, AGGCTL_STORE or the
        config file) through the caches. Always exits 0.
        """

    static let command = Command(
        name: name, summary: summary, flags: flags, details: details, alwaysSucceeds: true
    ) { flags, context in
        run(flags, context: context)
    }

    static func run(_ flags: ParsedFlags, context: RunContext) -> ExitStatus {
        // Claude Code waits for the line on every update: a server store gets one try and 2 seconds.
        var context = context
        context.retryPolicy = .never
        if (context.environment["AGGCTL_HTTP_TIMEOUT"] ?? "").isEmpty {
            context.environment["AGGCTL_HTTP_TIMEOUT"] = "2"
        }
        let now = (try? context.now(flags)) ?? context.clock()
        var official: ClaudeStatusLine?
        // Read for at most a second and 1 MiB (the document is a few KiB): a writer that keeps stdin
        // open must not hold the line back.
        let data = isatty(0) == 0 ? context.readStandardInputBriefly(1 << 20, 1) : Data()
        if !data.isEmpty {
            official = ClaudeStatusLine.parse(data, now: now)
            try? official?.save(in: context.stateDirectory + "/collectors")
        }
        var accounts: [MergedAccount] = []
        if let settings = try? MergeSettings(flags, context: context, command: name),
            let (result, saveCache) = try? context.merged(settings)
        {
            accounts = result.accounts
            saveCache()
        }
        let email = ClaudeUsageEndpoint.accountEmail(environment: context.environment)
        let device = try? DeviceIdentity.existingOrPreview(
            stateDirectory: context.stateDirectory, hostName: context.hostName())
        context.console.output.write(
            line(official: official, accounts: accounts, email: email, now: now, device: device) + "\n")
        return .success
    }

    /// `Claude 5h 63% left, resets in 2h 10m · week 40% left, on track · Codex 41% · Gemini 96%`.
    static let lineWidth = 200

    /// - Parameter device: this machine's device id: its own accounts come first (docs/statusline.md), another
    ///   machine's account of a provider shows only when it blocks (the work laptop's used-up Codex is not
    ///   the personal laptop's).
    static func line(
        official: ClaudeStatusLine?, accounts: [MergedAccount], email: String?, now: Date, device: DeviceID? = nil
    ) -> String {
        let claude = accounts.filter { $0.providerID == "claude" }
        let mine =
            claude.first { account in email.map { account.key.normalizedEmail == $0.lowercased() } ?? false }
            ?? claude.first { account in device.map { account.seenOn.contains($0) } ?? false }
            ?? claude.max { $0.lastUpdated < $1.lastUpdated }
        // The figures Claude Code just handed over are the freshest there are.
        // Judged as the store's are: a window Claude Code hands over past its reset is due, not its old
        // percent (Claude Code keeps the last figures it had until its next response).
        func judged(_ window: UsageWindow) -> WindowStatus {
            var status = WindowStatus(window)
            status.judge(at: now)
            return status
        }
        let session = official?.session.map(judged) ?? mine?.session
        let weekly = official?.weekly.map(judged) ?? mine?.weekly
        var parts: [String] = []
        var claudePart = "Claude"
        if session == nil && weekly == nil { claudePart += " no figures yet" }
        if let session {
            claudePart += " 5h " + left(session)
            if let pace = session.pace(at: now), !pace.lastsUntilReset, let eta = pace.etaSeconds {
                claudePart += eta <= 0 ? ", used up" : ", runs out in \(DurationText.short(eta))"
            } else if let resetsAt = session.resetsAt, resetsAt > now {
                claudePart += ", resets in \(DurationText.short(resetsAt.timeIntervalSince(now)))"
            }
        }
        parts.append(claudePart)
        if let weekly {
            var weekPart = "week " + left(weekly)
            if let pace = weekly.pace(at: now), !weekly.due { weekPart += ", " + HumanFormat.pace(pace) }
            parts.append(weekPart)
        }
        // Claude's other limits that matter now: a binding one running low, one model's week used up.
        // A model's week Claude Code just handed over stands for the store's.
        let handedOver = (official?.limits ?? []).map { limit in
            var status = LimitStatus(limit)
            status.window.judge(at: now)
            return status
        }
        let stored = (mine?.limits ?? []).filter { limit in !handedOver.contains { $0.id == limit.id } }
        for limit in handedOver + stored where !limit.window.due {
            if limit.window.level == .depleted {
                parts.append(limit.label + " used up")
            } else if limit.binding, limit.window.level != .ok {
                parts.append(limit.label + " " + left(limit.window))
            }
        }
        // The others: each provider's tightest window over this machine's accounts of it (`due` when all have
        // reset since); a provider this machine has no account of, only when one of its accounts blocks.
        let own = Set(
            accounts.filter { account in device.map { account.seenOn.contains($0) } ?? false }.map(\.providerID))
        var worst: [String: MergedAccount] = [:]
        for account in accounts where account.providerID != "claude" {
            let isOwn = device.map { account.seenOn.contains($0) } ?? false
            guard own.contains(account.providerID) ? isOwn : account.blocked else { continue }
            guard let current = worst[account.providerID] else {
                worst[account.providerID] = account
                continue
            }
            let remaining = account.tightestWindow?.remainingPercent ?? 101
            if remaining < current.tightestWindow?.remainingPercent ?? 101 { worst[account.providerID] = account }
        }
        for provider in worst.keys.sorted().prefix(4) {
            guard let account = worst[provider] else { continue }
            let figure = StatusBar.figure(of: account, now: now)
            parts.append(
                ProviderNames.displayName(of: provider) + " " + (figure.hasPrefix("depleted") ? "depleted" : figure))
        }
        // A line in Claude Code's footer: at most `lineWidth` columns, whatever the records hold.
        return TerminalWidth.cut(SafeText.line(parts.joined(separator: " · ")), to: lineWidth)
    }

    private static func left(_ window: WindowStatus) -> String {
        if window.due { return "due" }
        return window.level == .depleted ? "used up" : HumanFormat.percent(window.remainingPercent) + " left"
    }
}
