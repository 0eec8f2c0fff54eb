import Portable

/// `--source codex[:CODEX_HOME]`: this machine's Codex CLI logs.
public struct CodexKind: CollectorKind {
    public init() {}
    public let name = "codex"
    public let path = "the Codex home (default $CODEX_HOME, else ~/.codex)"
    public let summary = "this machine's Codex CLI logs: rate limits, tokens per day, the account"
    public var variables: [(name: String, meaning: String)] { [("CODEX_HOME", "where Codex keeps its logs")] }

    public func presence(environment: [String: String]) -> SourcePresence {
        let sessions = CodexCollector.defaultHome(environment: environment) + "/sessions"
        let shown = SourcePresence.shown(sessions, environment: environment)
        return FileSystem.isFolder(sessions) == true
            ? SourcePresence(found: true, "Codex logs in \(shown)") : SourcePresence(found: false, "no \(shown)")
    }

    public func make(path: String?, context: CollectorContext) throws -> Collector {
        let home = path ?? CodexCollector.defaultHome(environment: context.environment)
        let (zones, state, prices) = (context.zones, context.stateFolder, context.prices)
        // Limit messages give times in words in the machine's zone, responses are priced by the table: a
        // scan kept under another zone or table is read again.
        let reader = context.readerVersion + " in " + zones.local.identifier + ", " + prices.fingerprint
        return Collector(name: name) { (now: Date) throws -> Collected in
            try CodexCollector(home: home, zones: zones, prices: prices).gather(
                now: now, stateFolder: state, readerVersion: reader)
        }
    }
}

/// `--source codex-api[:CODEX_HOME]`: Codex's usage endpoint, with the login in the Codex home's auth.json.
public struct CodexAPIKind: CollectorKind {
    public init() {}
    public let name = "codex-api"
    public let path = "the Codex home holding auth.json"
    public let summary = "Codex's usage endpoint: the exact windows"
    public let isEndpoint = true

    public func presence(environment: [String: String]) -> SourcePresence {
        let auth = CodexCollector.defaultHome(environment: environment) + "/auth.json"
        let shown = SourcePresence.shown(auth, environment: environment)
        let signedIn = JSONValue.read(contentsOf: auth)?["tokens"]?["access_token"]?.string.map { !$0.isEmpty } ?? false
        return signedIn
            ? SourcePresence(found: true, "signed in to ChatGPT (\(shown))")
            : SourcePresence(found: false, "no ChatGPT login in \(shown)")
    }

    public func make(path: String?, context: CollectorContext) throws -> Collector {
        var endpoint = CodexUsageEndpoint(environment: context.environment, client: try context.httpClient())
        if let path { endpoint.home = path }
        return Collector(name: name, isEndpoint: true) { [endpoint] now in endpoint.collect(now: now) }
    }
}
