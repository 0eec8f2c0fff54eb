import HTTP

/// The environment a hook or helper program gets: the caller's, less every secret aggctl knows of.
///
/// One list for every program aggctl starts: a store password, a notifier's token, cloud keys and the
/// agents' tokens stay in aggctl, and a store URL loses its userinfo. Every store backend, collector and
/// notifier kind declares the secrets it reads; the command line puts them together (`aggctl`'s
/// `SecretEnvironment.aggctl`), and a test fails when a variable that looks like a secret is read
/// anywhere and declared nowhere.
public struct SecretEnvironment: Sendable, Equatable {
    /// Variables never passed on, by exact name.
    public var names: Set<String>
    /// Variables never passed on, by prefix.
    public var prefixes: [String]

    public init(names: Set<String>, prefixes: [String]) {
        self.names = names
        self.prefixes = prefixes
    }

    /// Every secret a registered notifier kind declares.
    public static let notifiers = SecretEnvironment(names: NotifierRegistry.standard.secretVariables, prefixes: [])

    /// These secrets and `other`'s.
    public func union(_ other: SecretEnvironment) -> SecretEnvironment {
        SecretEnvironment(names: names.union(other.names), prefixes: prefixes + other.prefixes)
    }

    /// Whether `name` is one of the secrets.
    public func isSecret(_ name: String) -> Bool {
        names.contains(name) || prefixes.contains { name.hasPrefix($0) }
    }

    /// `environment` without its secrets.
    public func withoutSecrets(_ environment: [String: String]) -> [String: String] {
        var passed = environment.filter { !isSecret($0.key) }
        // A store URL may carry a password in its userinfo.
        passed["AGGCTL_STORE"] = passed["AGGCTL_STORE"].map(HTTPRequest.displayURL)
        return passed
    }
}
