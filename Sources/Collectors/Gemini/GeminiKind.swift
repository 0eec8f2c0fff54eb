import Portable

/// `--source gemini[:DIR]`: this machine's Gemini CLI sessions.
public struct GeminiKind: CollectorKind {
    public init() {}
    public let name = "gemini"
    public let path = "Gemini CLI's folder (default $GEMINI_CLI_HOME/.gemini, else ~/.gemini)"
    public let summary = "this machine's Gemini CLI sessions: tokens per day"
    public var variables: [(name: String, meaning: String)] {
        [("GEMINI_CLI_HOME", "where Gemini CLI keeps its sessions")]
    }

    public func presence(environment: [String: String]) -> SourcePresence {
        let chats = GeminiCollector.defaultHome(environment: environment) + "/tmp"
        let shown = SourcePresence.shown(chats, environment: environment)
        return FileSystem.isFolder(chats) == true
            ? SourcePresence(found: true, "Gemini CLI sessions in \(shown)")
            : SourcePresence(found: false, "no \(shown)")
    }

    public func make(path: String?, context: CollectorContext) throws -> Collector {
        let home = path ?? GeminiCollector.defaultHome(environment: context.environment)
        // A scan kept under another price table is read again.
        let (state, prices) = (context.stateFolder, context.prices)
        let reader = context.readerVersion + ", " + prices.fingerprint
        return Collector(name: name) { (now: Date) throws -> Collected in
            try GeminiCollector(home: home, prices: prices).gather(now: now, stateFolder: state, readerVersion: reader)
        }
    }
}
