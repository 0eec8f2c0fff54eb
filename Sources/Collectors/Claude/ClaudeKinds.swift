import HTTP
import Portable

/// `--source claude[:CONFIG_DIR]`: this machine's Claude Code logs.
public struct ClaudeKind: CollectorKind {
    public init() {}
    public let name = "claude"
    public let path = "Claude Code's config folder (default $CLAUDE_CONFIG_DIR, else ~/.config/claude and ~/.claude)"
    public let summary =
        "this machine's Claude Code logs (tokens and cost per day, limit messages), and its usage answer when signed in"
    public var variables: [(name: String, meaning: String)] {
        [("CLAUDE_CONFIG_DIR", "where Claude Code keeps its logs")]
    }
    /// It asks the usage answer too when signed in (declared, with its meaning, by `claude-api`).
    public var secretVariables: [String] { ["CLAUDE_CODE_OAUTH_TOKEN"] }
    public var asks: [String] { ["claude-api"] }

    public func presence(environment: [String: String]) -> SourcePresence {
        let folders = ClaudeCollector.defaultFolders(environment: environment).map { $0 + "/projects" }
        guard let logs = folders.first(where: { FileSystem.isFolder($0) == true }) else {
            let places =
                folders.isEmpty ? "~/.claude/projects or ~/.config/claude/projects" : folders.joined(separator: ", ")
            return SourcePresence(found: false, "no Claude Code logs (\(places))")
        }
        let answer =
            ClaudeAPIKind().presence(environment: environment).found ? "; signed in, so its usage answer too" : ""
        return SourcePresence(
            found: true, "Claude Code logs in \(SourcePresence.shown(logs, environment: environment))" + answer)
    }

    public func make(path: String?, context: CollectorContext) throws -> Collector {
        let folders = path.map { [$0] } ?? ClaudeCollector.defaultFolders(environment: context.environment)
        let (zones, state, statusLine) = (context.zones, context.stateFolder, context.statusLineFolder)
        // Limit messages give times in words, in the machine's zone or one they name; responses are priced
        // by the table: a scan kept under another zone or table is read again.
        let prices = context.prices
        let reader = context.readerVersion + " in " + zones.local.identifier + ", " + prices.fingerprint
        // The status line's figures are read even by a dry run (which keeps no state of its own).
        let home = context.environment["HOME"] ?? FileSystem.homeDirectory()
        // Signed in here: the usage answer gives the windows' percentages, which the logs cannot (docs/collectors.md:
        // the usage answer by default where the credentials are). Without credentials, the logs alone.
        var answer: ClaudeUsageEndpoint?
        if var endpoint = try? ClaudeUsageEndpoint(environment: context.environment, client: context.httpClient()) {
            if let folder = path { endpoint.configFolder = folder }
            if endpoint.hasCredentials { answer = endpoint }
        }
        return Collector(name: name) { [answer] (now: Date) throws -> Collected in
            var collected = try ClaudeCollector(folders: folders, zones: zones, prices: prices).gather(
                now: now, stateFolder: state, readerVersion: reader, statusLineFolder: statusLine)
            var entry = collected.usage
            // The account Claude Code is signed in with (`oauthAccount.emailAddress` of its `.claude.json`):
            // without it two accounts could not be told apart, nor one merged across machines.
            entry.accountEmail =
                folders.lazy.compactMap {
                    ClaudeUsageEndpoint.accountEmail(configFolder: $0, home: home)
                }.first
            // The answer's windows stand over what the logs suggest; one that could not be had (offline,
            // signed out) leaves the logs' figures, without an error: they are still this machine's.
            if let answer {
                let asked = answer.collect(now: now)
                if asked.error == nil {
                    entry.session = asked.session ?? entry.session
                    entry.weekly = asked.weekly ?? entry.weekly
                    if let limits = asked.limits {
                        // The answer's per-model weeks stand for the ones the limit messages suggest.
                        entry.limits = limits
                        entry.modelWeekly = nil
                    }
                    entry.plan = asked.plan ?? entry.plan
                    entry.accountEmail = entry.accountEmail ?? asked.accountEmail
                    entry.lastUpdated = max(entry.lastUpdated, asked.lastUpdated)
                }
            }
            collected.usage = entry
            return collected
        }
    }
}

/// `--source claude-api[:CONFIG_DIR]`: Claude's usage endpoint, with Claude Code's token.
public struct ClaudeAPIKind: CollectorKind {
    public init() {}
    public let name = "claude-api"
    public let path = "Claude Code's config folder, where its token and account live"
    public let summary = "Claude's usage endpoint: the exact windows"
    public let isEndpoint = true
    public var variables: [(name: String, meaning: String)] {
        [("CLAUDE_CODE_OAUTH_TOKEN", "Claude Code's token for the usage endpoint; never shown")]
    }
    public var secretVariables: [String] { ["CLAUDE_CODE_OAUTH_TOKEN"] }

    public func presence(environment: [String: String]) -> SourcePresence {
        // The token Claude Code keeps, not one set in this shell: a schedule does not see the shell's.
        var files = environment
        files["CLAUDE_CODE_OAUTH_TOKEN"] = nil
        let endpoint = ClaudeUsageEndpoint(environment: files, client: HTTPClient(.init()))
        let credentials = SourcePresence.shown(endpoint.configFolder + "/.credentials.json", environment: environment)
        return endpoint.hasCredentials
            ? SourcePresence(found: true, "signed in (\(credentials))")
            : SourcePresence(found: false, "no Claude login in \(credentials)")
    }

    public func make(path: String?, context: CollectorContext) throws -> Collector {
        var endpoint = ClaudeUsageEndpoint(environment: context.environment, client: try context.httpClient())
        if let path { endpoint.configFolder = path }
        return Collector(name: name, isEndpoint: true) { [endpoint] now in endpoint.collect(now: now) }
    }
}
