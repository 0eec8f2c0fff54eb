import HTTP

/// The environment a hook or helper program gets: the caller's, less every secret aggctl knows of.
///
/// One list for every program aggctl starts: a store password, a webhook token, cloud keys and the
/// agents' tokens stay in aggctl, and a store URL loses its userinfo.
public enum SecretEnvironment {
    /// Variables never passed on, by exact name.
    public static let secretNames: Set<String> = [
        "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "GH_TOKEN",
        "GITHUB_TOKEN",
    ]
    /// Variables never passed on, by prefix: WebDAV credentials and webhook tokens.
    public static let secretPrefixes = ["AGGCTL_WEBDAV_", "AGGCTL_WEBHOOK_"]

    /// `environment` without its secrets.
    public static func withoutSecrets(_ environment: [String: String]) -> [String: String] {
        var passed = environment.filter { variable in
            !secretNames.contains(variable.key) && !secretPrefixes.contains { variable.key.hasPrefix($0) }
        }
        // A store URL may carry a password in its userinfo.
        passed["AGGCTL_STORE"] = passed["AGGCTL_STORE"].map(HTTPRequest.displayURL)
        return passed
    }
}
