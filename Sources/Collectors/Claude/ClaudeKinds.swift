import Portable

/// `--source claude[:CONFIG_DIR]`: this machine's Claude Code logs.
public struct ClaudeKind: CollectorKind {
    public init() {}
    public let name = "claude"
    public let path = "Claude Code's config folder (default $CLAUDE_CONFIG_DIR, else ~/.config/claude and ~/.claude)"
    public let summary = "this machine's Claude Code logs: tokens and cost per day, limit messages"
    public var variables: [(name: String, meaning: String)] {
        [("CLAUDE_CONFIG_DIR", "where Claude Code keeps its logs")]
    }

    public func make(path: String?, context: CollectorContext) throws -> Collector {
        let folders = path.map { [$0] } ?? ClaudeCollector.defaultFolders(environment: context.environment)
        let (zones, state, statusLine) = (context.zones, context.stateFolder, context.statusLineFolder)
        // Limit messages give times in words, in the machine's zone or one they name.
        let reader = context.readerVersion + " in " + zones.local.identifier
        // The status line's figures are read even by a dry run (which keeps no state of its own).
        let home = context.environment["HOME"] ?? FileSystem.homeDirectory()
        return Collector(name: name) { now in
            var entry = try ClaudeCollector(folders: folders, zones: zones).collect(
                now: now, stateFolder: state, readerVersion: reader, statusLineFolder: statusLine)
            // The account Claude Code is signed in with (`oauthAccount.emailAddress` of its `.claude.json`):
            // without it two accounts could not be told apart, nor one merged across machines.
            entry.accountEmail =
                folders.lazy.compactMap {
                    ClaudeUsageEndpoint.accountEmail(configFolder: $0, home: home)
                }.first
            return entry
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

    public func make(path: String?, context: CollectorContext) throws -> Collector {
        var endpoint = ClaudeUsageEndpoint(environment: context.environment, client: try context.httpClient())
        if let path { endpoint.configFolder = path }
        return Collector(name: name, isEndpoint: true) { [endpoint] now in endpoint.collect(now: now) }
    }
}
