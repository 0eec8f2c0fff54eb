import Portable

/// `--source gemini[:DIR]`: this machine's Gemini CLI sessions.
package struct GeminiKind: CollectorKind {
    package init() {}
    package let name = "gemini"
    package let path = "Gemini CLI's folder (default $GEMINI_CLI_HOME/.gemini, else ~/.gemini)"
    package let summary = "this machine's Gemini CLI sessions: tokens per day"
    package var variables: [(name: String, meaning: String)] {
        [("GEMINI_CLI_HOME", "where Gemini CLI keeps its sessions")]
    }

    package func presence(environment: [String: String]) -> SourcePresence {
        let chats = GeminiCollector.defaultHome(environment: environment) + "/tmp"
        let shown = SourcePresence.shown(chats, environment: environment)
        return FileSystem.isFolder(chats) == true
            ? SourcePresence(found: true, "Gemini CLI sessions in \(shown)")
            : SourcePresence(found: false, "no \(shown)")
    }

    package func make(path: String?, context: CollectorContext) throws -> Collector {
        let home = path ?? GeminiCollector.defaultHome(environment: context.environment)
        let (state, reader) = (context.stateFolder, context.readerVersion)
        return Collector(name: name) { now in
            try GeminiCollector(home: home).collect(now: now, stateFolder: state, readerVersion: reader)
        }
    }
}
