import Portable

/// `--source opencode[:DATA_DIR]`: this machine's OpenCode database.
public struct OpenCodeKind: CollectorKind {
    public init() {}
    public let name = "opencode"
    public let path = "OpenCode's data folder (default $OPENCODE_DATA_DIR, else ~/.local/share/opencode)"
    public let summary = "this machine's OpenCode database: tokens and cost per hour and model"
    public var variables: [(name: String, meaning: String)] {
        [("OPENCODE_DATA_DIR", "where OpenCode keeps opencode.db")]
    }

    public func presence(environment: [String: String]) -> SourcePresence {
        let folder = OpenCodeCollector.defaultFolder(environment: environment)
        let shown = SourcePresence.shown(folder, environment: environment)
        return OpenCodeCollector.database(in: folder) != nil || FileSystem.isFolder(folder + "/storage/message") == true
            ? SourcePresence(found: true, "OpenCode's data in \(shown)")
            : SourcePresence(found: false, "no OpenCode data in \(shown)")
    }

    public func make(path: String?, context: CollectorContext) throws -> Collector {
        let folder = path ?? OpenCodeCollector.defaultFolder(environment: context.environment)
        let (prices, state) = (context.prices, context.stateFolder)
        // What the database summed to is kept under this reader and price table only.
        let reader = context.readerVersion + ", " + prices.fingerprint
        return Collector(name: name) { (now: Date) throws -> Collected in
            try OpenCodeCollector(folder: folder, prices: prices).gather(
                now: now, stateFolder: state, readerVersion: reader)
        }
    }
}
