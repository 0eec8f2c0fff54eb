import HTTP
import Portable
import Snapshots

/// One kind of store, declared in one place: the `--store` values it answers to, how it parses and opens
/// them, and what `doctor` checks for it. Adding a store is a folder with its backend and one line in
/// `StoreRegistry.standard`.
public protocol StoreBackend: Sendable {
    /// The backend's name, as locations carry it: "folder", "webdav", "s3".
    var name: String { get }

    /// The URL schemes it answers to, lower case ("http", "https"). A backend that also takes a plain
    /// path (the folder) says so with `takesPaths`.
    var schemes: [String] { get }

    /// Whether a `--store` value without a scheme, a path, is this backend's.
    var takesPaths: Bool { get }

    /// Parses a `--store` value whose scheme is one of `schemes` (or a path, when `takesPaths`), checking
    /// all of it before anything is read or written.
    func parse(_ text: String) throws(StoreLocation.ParseError) -> StoreLocation

    /// A store for a location this backend parsed: credentials, endpoint and HTTP client from `context`.
    func open(_ location: StoreLocation, context: StoreContext) throws -> any RecordStore

    /// The backend's own `doctor` checks for a location it parsed.
    func diagnosis(of location: StoreLocation, context: StoreContext) -> any StoreDiagnosis

    /// Environment variables it reads, by one name or several read together, with what they are for:
    /// the manual page's ENVIRONMENT lists them.
    var variables: [(names: String, meaning: String)] { get }
    /// Environment variables holding this kind's credentials: never printed, never passed to a hook.
    var secretVariables: [String] { get }
    /// The same, by prefix (`AGGCTL_WEBDAV_`).
    var secretPrefixes: [String] { get }
}

extension StoreBackend {
    public var takesPaths: Bool { false }
    public var variables: [(names: String, meaning: String)] { [] }
    public var secretVariables: [String] { [] }
    public var secretPrefixes: [String] { [] }
}

/// What opening a store may use from outside: handed in, so tests fix each of them.
public struct StoreContext: Sendable {
    /// The process environment: credentials, endpoints, regions.
    public var environment: [String: String]
    /// The home folder, for `~/.netrc` and `~/.aws/`.
    public var home: String
    /// The time requests are signed and clocks compared with.
    public var clock: @Sendable () -> Date
    /// The run's HTTP settings (timeout, certificates, retries, user agent); a backend adds credentials.
    public var http: @Sendable () throws -> HTTPClient.Configuration
    /// Where a store may keep what it learns between runs (a WebDAV store: the last listing's names);
    /// nil for a run that keeps nothing.
    public var cacheFolder: String?

    public init(
        environment: [String: String], home: String, clock: @escaping @Sendable () -> Date = { Date() },
        http: @escaping @Sendable () throws -> HTTPClient.Configuration = { HTTPClient.Configuration() },
        cacheFolder: String? = nil
    ) {
        self.environment = environment
        self.home = home
        self.clock = clock
        self.http = http
        self.cacheFolder = cacheFolder
    }
}

/// A backend's `doctor` checks, before and after the checks every store gets (reading every record,
/// then writing, reading back and removing a probe record).
public protocol StoreDiagnosis {
    /// Where the store is, credentials, the server, the clock. Returns false when the store cannot be used
    /// at all, and doctor stops there. Throws only for a usage error (a malformed setting), which ends
    /// the command as usage errors do.
    func checkAccess(report: (StoreFinding) -> Void) throws -> Bool

    /// What a probe record just written tells (a folder's clock by its file times). Default: nothing.
    func checkAfterProbe(writtenAt: Date, report: (StoreFinding) -> Void)
}

extension StoreDiagnosis {
    public func checkAfterProbe(writtenAt: Date, report: (StoreFinding) -> Void) {}
}

/// One `doctor` check's outcome, as printed: ok, warn or FAIL, what was found, and what to fix.
public struct StoreFinding: Sendable, Equatable {
    public enum Outcome: String, Sendable {
        case ok = "ok  "
        case warning = "warn"
        case failed = "FAIL"
    }

    public var check: String
    public var outcome: Outcome
    public var detail: String
    public var fix: String?

    public init(check: String, outcome: Outcome, detail: String, fix: String? = nil) {
        self.check = check
        self.outcome = outcome
        self.detail = detail
        self.fix = fix
    }

    /// Clocks further apart than this are worth a warning: records would be flagged `clockSkew` long
    /// before `--max-skew` (300 s) if they drifted more.
    public static let clockTolerance: TimeInterval = 30

    /// This machine's clock against another's (`offset` = ours minus theirs).
    public static func clock(offset: TimeInterval, against reference: String) -> StoreFinding {
        let seconds = Int(offset.rounded())
        guard abs(offset) > clockTolerance else {
            return StoreFinding(
                check: "clock", outcome: .ok, detail: "within \(max(1, abs(seconds))) s of \(reference)")
        }
        return StoreFinding(
            check: "clock", outcome: .warning,
            detail: "this machine is \(DurationWords.offset(offset)) \(reference)",
            fix: "run NTP (systemd-timesyncd, chrony) here or on the server; other machines flag skewed records")
    }
}

/// "45 s", "17 min", "2 h 0 min": an offset in words for doctor's clock lines. Past two minutes it is
/// rounded to the minute: a server's `Date` header has whole seconds, so "119 min 59 s" would claim a
/// precision the measure does not have.
enum DurationWords {
    static func text(_ seconds: TimeInterval) -> String {
        guard seconds >= 120 else { return "\(Int(seconds.rounded())) s" }
        let minutes = Int((seconds / 60).rounded())
        guard minutes >= 120 else { return "\(minutes) min" }
        return "\(minutes / 60) h \(minutes % 60) min"
    }

    /// `offset` (this machine's clock minus another's) as "2 h 0 min behind" or "45 s ahead of", to be
    /// followed by what it was compared with.
    static func offset(_ offset: TimeInterval) -> String {
        "\(text(abs(offset))) \(offset > 0 ? "ahead of" : "behind")"
    }
}
