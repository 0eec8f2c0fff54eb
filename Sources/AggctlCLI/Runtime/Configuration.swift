import HTTP
import Portable
import Snapshots
import Stores

/// Defaults from the config file, `$XDG_CONFIG_HOME/aggctl/config`.
///
/// The format is one `key = value` per line, CRLF line ends are read as LF; keys are the long flag names
/// they stand in for. `#` starts a comment at the start of a line or after white space (`store = ~/Sync
/// # synced` is `~/Sync`); a value in double quotes is taken as it is, `#` and all. A value starting with
/// `~/` has the home folder put in, and so has `$HOME` or `${HOME}` as a whole name (`$HOMEX` is left as
/// it is). Flags win over the environment (`AGGCTL_STORE`), which wins over this file. A missing file is
/// an empty configuration. The keys of repeatable flags (`source`, `notify`, `key-file`, `budget`) may be given on
/// several lines, one value each, in order; any other key given twice is an error naming both lines.
struct Configuration: Equatable {
    static let keys: Set<String> = [
        "store", "device-id", "device-name", "stale-after", "max-skew", "notify", "warn-at", "state-dir", "interval",
        "key-file", "source", "budget", "tz",
    ]
    /// Keys that stand for repeatable flags: one value a line, as many lines as wanted.
    static let repeatableKeys: Set<String> = ["source", "notify", "key-file", "budget"]

    /// By key: each value and the line it is on, for errors that name it.
    var values: [String: [(value: String, line: Int)]] = [:]

    static func == (lhs: Configuration, rhs: Configuration) -> Bool {
        lhs.values.mapValues { $0.map(\.value) } == rhs.values.mapValues { $0.map(\.value) }
            && lhs.values.mapValues { $0.map(\.line) } == rhs.values.mapValues { $0.map(\.line) }
    }

    /// The file's value for `key`, with its line (the first, for a key given on several lines).
    func setting(_ key: String) -> Setting? {
        settings(key).first
    }

    /// Every value the file gives `key`, in order, each with its line.
    func settings(_ key: String) -> [Setting] {
        (values[key] ?? []).map { Setting(value: $0.value, source: .config(key: key, line: $0.line)) }
    }

    /// Reads the file at `path`.
    /// - Throws: `UsageError` naming the file and line of a malformed or unknown entry.
    static func load(path: String, home: String = FileSystem.homeDirectory()) throws -> Configuration {
        // A plain read: FileManager's first use builds the manager and its metadata, a tenth of a
        // millisecond on every command, for a file most machines do not have.
        guard let data = FileSystem.contents(of: path) else { return Configuration() }
        guard let text = String(data: data, encoding: .utf8) else {
            throw UsageError("config '\(path)': not UTF-8 text")
        }
        var configuration = Configuration()
        // "\r\n" is one Character in Swift: a file written on Windows splits on it too.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        for (number, rawLine) in lines.enumerated() {
            let line = rawLine.trimming(where: { $0.isBlank || $0 == "\r" })
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw UsageError("config '\(path)': line \(number + 1): expected 'key = value'")
            }
            let key = line[..<equals].trimmingBlanks()
            guard var value = Self.value(line[line.index(after: equals)...]) else {
                throw UsageError(
                    "config '\(path)': line \(number + 1): the value's closing quote is missing, or text follows it")
            }
            guard keys.contains(key) else {
                throw UsageError(
                    "config '\(path)': line \(number + 1): unknown key '\(key)'; known keys: "
                        + keys.sorted().joined(separator: ", "))
            }
            if let earlier = configuration.values[key]?.first, !repeatableKeys.contains(key) {
                throw UsageError(
                    "config '\(path)': line \(number + 1): '\(key)' is given again (first on line \(earlier.line)); "
                        + "keep one")
            }
            if value.hasPrefix("~/") { value = home + value.dropFirst() }
            value = Self.expandingHome(value, home: home)
            configuration.values[key, default: []].append((value, number + 1))
        }
        return configuration
    }

    /// What follows a line's `=`: a quoted value's inside, else the text up to a comment (a `#` after
    /// white space), without the blanks around it. Nil for a quote not closed, or followed by more than
    /// a comment.
    static func value(_ text: Substring) -> String? {
        let isBlank = { (character: Character) in character == " " || character == "\t" }
        let text = text.drop(while: isBlank)
        if text.first == "\"" {
            let inside = text.dropFirst()
            guard let close = inside.firstIndex(of: "\"") else { return nil }
            let rest = inside[inside.index(after: close)...].drop(while: isBlank)
            guard rest.isEmpty || rest.first == "#" else { return nil }
            return String(inside[..<close])
        }
        var end = text.endIndex
        var previous: Character = " "
        for index in text.indices {
            if text[index] == "#", isBlank(previous) {
                end = index
                break
            }
            previous = text[index]
        }
        return text[..<end].trimmingBlanks()
    }

    /// A value of `key` as `config` and `init` show it: a store URL without its password, a webhook without its path.
    static func shown(_ value: String, key: String) -> String {
        if key == "store" { return HTTPRequest.displayURL(value) }
        // A notify URL's path and query may be its secret (a webhook's token, an ntfy topic).
        if key == "notify", let scheme = value.firstRange(of: "://") {
            let kind = value[..<scheme.lowerBound].split(separator: ":", maxSplits: 1)
            let prefix = kind.count == 2 ? String(kind[0]) + ":" : ""
            return prefix + HTTPRequest.origin(of: String(value.dropFirst(prefix.count))) + "/..."
        }
        return value
    }

    /// `$HOME` and `${HOME}` replaced by `home` where they are the whole variable name.
    static func expandingHome(_ value: String, home: String) -> String {
        var out = ""
        var rest = Substring(value)
        while let dollar = rest.firstIndex(of: "$") {
            out += rest[..<dollar]
            let after = rest[rest.index(after: dollar)...]
            if after.hasPrefix("{HOME}") {
                out += home
                rest = after.dropFirst(6)
            } else if after.hasPrefix("HOME"),
                after.dropFirst(4).first.map({ !($0.isLetter || $0.isNumber || $0 == "_") }) ?? true
            {
                out += home
                rest = after.dropFirst(4)
            } else {
                out += "$"
                rest = after
            }
        }
        return out + rest
    }
}

extension RunContext {
    /// A setting: the flag, else the environment variable, else the config file (its key is the flag's
    /// name), with where it came from.
    func setting(_ spec: FlagSpec, flags: ParsedFlags, environmentName: String? = nil) -> Setting? {
        if let given = flags.setting(spec) { return given }
        if let environmentName, let value = environment[environmentName], !value.isEmpty {
            return Setting(value: value, source: .environment(environmentName))
        }
        return configuration.setting(spec.name)
    }

    /// The store named by `--store`, `AGGCTL_STORE`, or the config file.
    func storeLocation(_ flags: ParsedFlags, command: String) throws -> StoreLocation {
        guard let setting = setting(CommonFlags.store, flags: flags, environmentName: "AGGCTL_STORE") else {
            throw UsageError(
                "missing --store S (a folder, WebDAV or s3:// URL; or set AGGCTL_STORE, or 'store = ...' in '\(configFile)')",
                command: command)
        }
        return try ValueParsers.store(setting)
    }

    /// A store for `location`, opened by the backend that parsed it; sealed when the run was given keys.
    func openStore(_ location: StoreLocation) throws -> any RecordStore {
        guard let backend = StoreRegistry.standard.backend(of: location) else {
            throw CommandFailure("no store backend for '\(location.displayName)'")
        }
        let store = try backend.open(location, context: storeContext)
        guard let sealing else { return store }
        return sealed(store, with: sealing)
    }

    /// What a store backend may use: the environment, the home folder, the clock, this run's HTTP settings.
    var storeContext: StoreContext {
        let context = self
        return StoreContext(
            environment: environment, home: home, clock: clock, http: { try context.httpConfiguration() },
            cacheFolder: cacheFolder)
    }

    /// The HTTP client for one run: `AGGCTL_HTTP_TIMEOUT` seconds per request (default 30), certificates
    /// from `AGGCTL_CA_FILE` when set, retries as the run's policy says unless `retry` is given.
    func httpClient(credentials: HTTPCredentials? = nil, retry: RetryPolicy? = nil) throws -> HTTPClient {
        var configuration = try httpConfiguration()
        configuration.credentials = credentials
        if let retry { configuration.retry = retry }
        return HTTPClient(configuration)
    }

    /// The settings of `httpClient`, without credentials.
    func httpConfiguration() throws -> HTTPClient.Configuration {
        var timeout = Duration.seconds(30)
        if let text = environment["AGGCTL_HTTP_TIMEOUT"], !text.isEmpty {
            guard let seconds = Double(text), seconds > 0, seconds <= 3600 else {
                throw UsageError(
                    "AGGCTL_HTTP_TIMEOUT: '\(text)' is not a number of seconds; expected a number such as 30")
            }
            timeout = .milliseconds(Int((seconds * 1000).rounded()))
        }
        let caFile = environment["AGGCTL_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        return HTTPClient.Configuration(
            timeout: timeout, connectTimeout: min(timeout, .seconds(10)), caFile: caFile, retry: retryPolicy,
            userAgent: "aggctl/\(Aggctl.version)")
    }

    /// A seconds setting (`--stale-after`, `--max-skew`) with its default.
    func seconds(_ spec: FlagSpec, flags: ParsedFlags, default fallback: TimeInterval) throws -> TimeInterval {
        guard let setting = setting(spec, flags: flags) else { return fallback }
        return try ValueParsers.seconds(setting)
    }

    /// `--now`, else the clock.
    func now(_ flags: ParsedFlags) throws -> Date {
        guard let setting = flags.setting(CommonFlags.now) else { return clock() }
        return try ValueParsers.date(setting)
    }
}
