import Notify
import Portable
import Pricing
import Snapshots
import Stores

/// Everything a command may touch outside its arguments, handed in so tests can fix each of them.
struct RunContext: Sendable {
    var console: Console
    /// The process environment (or a literal dictionary in tests).
    var environment: [String: String]
    /// The current time; `--now` overrides it where a command accepts it.
    var clock: @Sendable () -> Date
    /// Standard input, read only when a command is given `-`.
    var readStandardInput: @Sendable () throws -> Data
    /// Standard input until its end, a size or a time (`FileSystem.readBriefly`), for `statusline`,
    /// which must answer whether or not its writer ever closes it. Nothing in-process by default.
    var readStandardInputBriefly: @Sendable (_ maximum: Int, _ seconds: Double) -> Data = { _, _ in Data() }
    /// This machine's host name, for default device names. A function: only `publish` needs it.
    var hostName: @Sendable () -> String
    /// The config file's defaults, read once per run by `Aggctl.run` before a command starts.
    var configuration = Configuration()
    /// The store's keys, when the command was given any (`--key-file`, `key-file`) or asked that every
    /// record be sealed: every store it opens is sealed with them.
    var sealing: (any RecordSealing)?
    /// Hands over a large value the command no longer needs, so that it is not freed before the process
    /// ends: freeing a merge of ten thousand records took a third of a warm `status`, and exit returns
    /// the memory anyway. In-process tests pass a hook that lets the value go.
    var keepUntilExit: @Sendable (any Sendable) -> Void = { _ in }
    /// Runs hooks and helper programs.
    var processRunner: any ProcessRunner = SpawnProcessRunner()
    /// How deliveries are retried within a run; in-process tests keep the attempts and drop the waits.
    var retryPolicy: RetryPolicy = .standard

    /// - Parameters:
    ///   - closedOutput: stdout was closed when the process started: every write to it fails (EBADF).
    ///   - closedErrors: the same for stderr.
    static func standard(
        environment: [String: String], closedOutput: Bool = false, closedErrors: Bool = false
    ) -> RunContext {
        RunContext(
            console: .standard(environment: environment, closedOutput: closedOutput, closedErrors: closedErrors),
            environment: environment,
            clock: { Date() },
            readStandardInput: { try FileSystem.readAll(0) },
            readStandardInputBriefly: { FileSystem.readBriefly(0, maximum: $0, seconds: $1) },
            hostName: localHostName, keepUntilExit: { ProcessLifetime.keep($0) })
    }

    /// `--state-dir`, when given.
    var stateDirectoryOverride: String?

    /// Where the per-store caches (parse cache, merge memo, sweep stamp) live: `cache` in the state directory.
    var cacheFolder: String { stateDirectory + "/cache" }

    /// The state directory: `--state-dir`, else `$XDG_STATE_HOME/aggctl`, else `~/.local/state/aggctl`.
    var stateDirectory: String {
        if let stateDirectoryOverride { return stateDirectoryOverride }
        if let base = environment["XDG_STATE_HOME"], base.hasPrefix("/") {
            return base + "/aggctl"
        }
        return home + "/.local/state/aggctl"
    }

    /// The config file: `$XDG_CONFIG_HOME/aggctl/config`, else `~/.config/aggctl/config`.
    var configFile: String {
        if let base = environment["XDG_CONFIG_HOME"], base.hasPrefix("/") {
            return base + "/aggctl/config"
        }
        return home + "/.config/aggctl/config"
    }

    /// What this run prices tokens by: the table `prices update` kept in the state folder (else the
    /// bundled copy), with the user's overrides beside the config file; read on first use.
    var prices: PriceSource {
        PriceSource(stateFolder: stateDirectory, configFolder: FileSystem.parent(of: configFile))
    }

    var home: String {
        environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? FileSystem.homeDirectory()
    }

    /// `path` with a leading `~/` made the home folder, as a shell would have done had the `~` not been
    /// quoted (a config file's value, a flag written as `--key-file='~/…'`); any other path as it is.
    func expandingTilde(_ path: String) -> String {
        path.hasPrefix("~/") ? home + path.dropFirst(1) : path
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Values kept alive until the process exits (see `RunContext.keepUntilExit`).
enum ProcessLifetime {
    private static let lock = Lock()
    nonisolated(unsafe) private static var kept: [any Sendable] = []

    static func keep(_ value: any Sendable) {
        lock.lock()
        kept.append(value)
        lock.unlock()
    }
}

/// `gethostname`, without the name resolution `ProcessInfo.hostName` may do.
@Sendable func localHostName() -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
