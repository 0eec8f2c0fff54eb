import HTTP
import Portable
import Pricing
import Snapshots

/// A source of this machine's usage (`publish --source NAME[:PATH]`): what it is called, what its PATH
/// means, what it reads from the environment (and which of that is secret), and how it is made. Help,
/// completions, the manual and the secrets kept from hooks come from these declarations.
public protocol CollectorKind: Sendable {
    /// `codex`, `claude-api`, ...
    var name: String { get }
    /// What `NAME:PATH`'s PATH is ("the Codex home"), and where it is by default.
    var path: String { get }
    /// One line for help and the manual.
    var summary: String { get }
    /// A usage endpoint (exact windows) rather than this machine's logs; endpoints are asked first.
    var isEndpoint: Bool { get }
    /// Environment variables it reads, with what each is for.
    var variables: [(name: String, meaning: String)] { get }
    /// Which of `variables` hold secrets: never printed, never passed to a hook.
    var secretVariables: [String] { get }

    /// Sources this one asks as well: `claude` asks `claude-api`'s answer when signed in, so `aggctl init`
    /// does not schedule both.
    var asks: [String] { get }

    /// The collector for `path` (nil: the default place).
    func make(path: String?, context: CollectorContext) throws -> Collector

    /// Whether this machine has what the source reads, in its default place, as `aggctl init` tells it:
    /// files only, never a secret's value. A credential only in this shell's environment is not found: a
    /// schedule does not see it.
    func presence(environment: [String: String]) -> SourcePresence
}

extension CollectorKind {
    public var isEndpoint: Bool { false }
    public var asks: [String] { [] }
    public var variables: [(name: String, meaning: String)] { [] }
    public var secretVariables: [String] { [] }
}

/// What `aggctl init` found of one source on this machine.
public struct SourcePresence: Sendable, Equatable {
    /// Whether a schedule running `publish --source NAME` would read something here.
    public var found: Bool
    /// What was found, or what is missing, where: "Codex logs in ~/.codex/sessions".
    public var detail: String

    public init(found: Bool, _ detail: String) {
        self.found = found
        self.detail = detail
    }

    /// `path` with the home folder written `~`, as people read it.
    public static func shown(_ path: String, environment: [String: String]) -> String {
        let home = environment["HOME"] ?? FileSystem.homeDirectory()
        guard !home.isEmpty, home != "/", path == home || path.hasPrefix(home + "/") else { return path }
        return "~" + path.dropFirst(home.count)
    }
}

/// What a collector may use of the run that makes it, handed in.
public struct CollectorContext {
    public var environment: [String: String]
    /// Where collectors keep what they read, to read only what is new next time (nil: keep nothing).
    public var stateFolder: String?
    /// Where `aggctl statusline` keeps Claude Code's own figures (read only).
    public var statusLineFolder: String?
    /// The zones limit messages are read in.
    public var zones: Zones
    /// The version of what reads the logs (`aggctl 0.1.0`): a kept scan of another version is read again.
    public var readerVersion: String
    /// Makes the client the usage endpoints use.
    public var httpClient: () throws -> HTTPClient
    /// What logs' responses are priced by (read on first use).
    public var prices: PriceSource

    public init(
        environment: [String: String], stateFolder: String?, statusLineFolder: String?, zones: Zones,
        readerVersion: String, httpClient: @escaping () throws -> HTTPClient, prices: PriceSource = .bundled
    ) {
        self.prices = prices
        self.environment = environment
        self.stateFolder = stateFolder
        self.statusLineFolder = statusLineFolder
        self.zones = zones
        self.readerVersion = readerVersion
        self.httpClient = httpClient
    }
}

/// What one source read: its provider entry, and what the agent's logs say was spent (the ledger's rows,
/// without an account: the entry's, settled when sources are combined, is theirs).
public struct Collected: Sendable {
    public var usage: ProviderUsage
    /// Made when asked for: a publish whose sources all read what they read last time asks for none.
    private let rows: @Sendable () -> [LedgerRow]
    /// The same value on two runs means the same rows (the logs' fingerprint, when a source read back
    /// what it made of them last time); nil when the rows were made anew.
    public var ledgerFingerprint: UInt64?

    public var ledger: [LedgerRow] { rows() }

    public init(usage: ProviderUsage, ledger: [LedgerRow] = []) {
        self.init(usage: usage, ledgerFingerprint: nil, rows: { ledger })
    }

    init(usage: ProviderUsage, ledgerFingerprint: UInt64?, rows: @escaping @Sendable () -> [LedgerRow]) {
        self.usage = usage
        self.ledgerFingerprint = ledgerFingerprint
        self.rows = rows
    }
}

/// A collector made for one run: reads this machine's usage into one provider entry.
public struct Collector {
    public var name: String
    public var isEndpoint: Bool
    private let read: (Date) throws -> Collected

    /// A source with no logs of spending (a usage endpoint).
    public init(name: String, isEndpoint: Bool = false, read: @escaping (Date) throws -> ProviderUsage) {
        self.init(name: name, isEndpoint: isEndpoint, gather: { Collected(usage: try read($0)) })
    }

    public init(name: String, isEndpoint: Bool = false, gather: @escaping (Date) throws -> Collected) {
        self.name = name
        self.isEndpoint = isEndpoint
        self.read = gather
    }

    public func collect(now: Date) throws -> Collected { try read(now) }
}

/// The sources aggctl knows, found by name.
public struct CollectorRegistry: Sendable {
    public let kinds: [any CollectorKind]

    public init(_ kinds: [any CollectorKind]) {
        self.kinds = kinds
    }

    /// Every source aggctl ships: one line per kind.
    public static let standard = CollectorRegistry([
        CodexKind(),
        ClaudeKind(),
        GeminiKind(),
        OpenCodeKind(),
        CodexAPIKind(),
        ClaudeAPIKind(),
        CopilotAPIKind(),
    ])

    public var names: [String] { kinds.map(\.name) }

    public func kind(named name: String) -> (any CollectorKind)? {
        kinds.first { $0.name == name }
    }

    /// Every secret a source reads.
    public var secretVariables: Set<String> { Set(kinds.flatMap(\.secretVariables)) }
}
