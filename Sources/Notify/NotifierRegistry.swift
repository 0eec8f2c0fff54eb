import HTTP
import Portable

/// A kind of notification backend: what `--notify` values it takes, what it reads from the environment,
/// and how it makes a `Notifier` from a value. Help, completions, the manual page and the list of
/// secrets kept from hooks are all made from these declarations (`NotifierRegistry`).
public protocol NotifierKind: Sendable {
    /// `stdout`, or the prefix of a value with an argument (`webhook` for `webhook:URL`).
    var name: String { get }
    /// Whether the value carries an argument after `name:`.
    var takesArgument: Bool { get }
    /// The value's form for help and messages: `stdout`, `webhook:URL`.
    var form: String { get }
    /// One line for `check --help` and the manual.
    var summary: String { get }
    /// Environment variables this kind reads, with what each is for (the manual's ENVIRONMENT).
    var variables: [(name: String, meaning: String)] { get }
    /// Which of `variables` hold secrets: never printed, never passed to a hook or helper program.
    var secretVariables: [String] { get }

    /// The notifier for `argument` (nil for a kind without one).
    ///
    /// - Throws: `NotifierSpecError`: the value is not of this kind's form (a usage error, exit 2) or what
    ///   it needs cannot be had (exit 1). The message never holds a secret: a URL shows its origin only.
    func make(argument: String?, context: NotifierContext) throws -> any Notifier
}

extension NotifierKind {
    public var takesArgument: Bool { true }
    public var variables: [(name: String, meaning: String)] { [] }
    public var secretVariables: [String] { [] }
}

/// What a notifier may use of the run that makes it, handed in rather than reached for.
public struct NotifierContext: Sendable {
    /// The caller's environment, secrets included: a kind reads its own variables from it.
    public var environment: [String: String]
    /// Where `stdout` writes a line; throws when it did not arrive whole.
    public var writeOutput: @Sendable (String) throws -> Void
    public var processRunner: any ProcessRunner
    /// An HTTP client with these credentials and no retries of its own: the outbox retries every backend.
    public var httpClient: @Sendable (HTTPCredentials?) throws -> HTTPClient
    /// What programs aggctl starts may see of `environment`.
    public var secrets: SecretEnvironment

    public init(
        environment: [String: String], writeOutput: @escaping @Sendable (String) throws -> Void,
        processRunner: any ProcessRunner, httpClient: @escaping @Sendable (HTTPCredentials?) throws -> HTTPClient,
        secrets: SecretEnvironment
    ) {
        self.environment = environment
        self.writeOutput = writeOutput
        self.processRunner = processRunner
        self.httpClient = httpClient
        self.secrets = secrets
    }
}

/// Why a `--notify` value makes no notifier: one line naming the value (a URL by its origin only).
public struct NotifierSpecError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    /// The value itself is wrong (exit 2); else something it needs is missing (exit 1).
    public var isUsage: Bool

    public init(_ message: String, isUsage: Bool = true) {
        self.message = message
        self.isUsage = isUsage
    }

    public var description: String { message }
}

/// The notification backends aggctl knows, found by a `--notify` value.
public struct NotifierRegistry: Sendable {
    public let kinds: [any NotifierKind]

    public init(_ kinds: [any NotifierKind]) {
        self.kinds = kinds
    }

    /// Every backend aggctl ships: one line per kind.
    public static let standard = NotifierRegistry([
        StdoutKind(),
        DesktopKind(),
        CommandKind(),
        WebhookKind(),
        NtfyKind(),
        SlackKind(),
        DiscordKind(),
    ])

    /// The kind of a `--notify` value and its argument; nil for a value of no kind.
    public func kind(of value: String) -> (kind: any NotifierKind, argument: String?)? {
        for kind in kinds {
            if kind.takesArgument {
                if value.hasPrefix(kind.name + ":") { return (kind, String(value.dropFirst(kind.name.count + 1))) }
            } else if value == kind.name {
                return (kind, nil)
            }
        }
        return nil
    }

    /// The values' beginnings for completion: `stdout`, `webhook:`, ...
    public var choices: [String] { kinds.map { $0.takesArgument ? $0.name + ":" : $0.name } }

    /// "desktop, stdout, command:/path/to/hook or webhook:URL": the forms, for help and messages.
    public var forms: String {
        let all = kinds.map(\.form)
        guard let last = all.last else { return "" }
        return all.count == 1 ? last : all.dropLast().joined(separator: ", ") + " or " + last
    }

    /// Every secret a kind reads.
    public var secretVariables: Set<String> { Set(kinds.flatMap(\.secretVariables)) }
}
