import HTTP
import Portable
import Snapshots

/// Where a WebDAV store's user name and password come from, most specific first:
/// the URL's userinfo, then `AGGCTL_WEBDAV_USER` / `AGGCTL_WEBDAV_PASSWORD`, then `~/.netrc`.
///
/// A URL may name only the user and leave the password to the environment or `.netrc`. The environment
/// wins over `.netrc` because it was set for this run. None of these ever reaches a message.
public enum WebDAVCredentials {
    public static func resolve(
        for url: URL, environment: [String: String], netrcPath: String?
    ) -> HTTPCredentials? {
        resolveWithSource(for: url, environment: environment, netrcPath: netrcPath)?.credentials
    }

    /// The credentials and where the password came from, for `doctor` ("the URL", "AGGCTL_WEBDAV_PASSWORD",
    /// the `.netrc` path).
    public static func resolveWithSource(
        for url: URL, environment: [String: String], netrcPath: String?
    ) -> (credentials: HTTPCredentials, source: String)? {
        var user = url.user(percentEncoded: false).flatMap { $0.isEmpty ? nil : $0 }
        if let password = url.password(percentEncoded: false), let user {
            return (HTTPCredentials(user: user, password: password), "the URL")
        }
        user = user ?? environment["AGGCTL_WEBDAV_USER"].flatMap { $0.isEmpty ? nil : $0 }
        if let password = environment["AGGCTL_WEBDAV_PASSWORD"], let user {
            return (HTTPCredentials(user: user, password: password), "AGGCTL_WEBDAV_PASSWORD")
        }
        if let netrcPath, let text = try? String(contentsOfFile: netrcPath, encoding: .utf8),
            let entry = Netrc(text).entry(forHost: url.host ?? "", user: user)
        {
            return (HTTPCredentials(user: entry.login, password: entry.password), netrcPath)
        }
        return nil
    }
}

/// The `.netrc` format as curl and ftp read it: `machine`, `default`, `login`, `password` tokens
/// separated by any white space (`account` is skipped; nothing after a `macdef` is read).
struct Netrc {
    struct Entry: Equatable {
        /// Nil for the `default` entry.
        var machine: String?
        var login: String
        var password: String
    }

    var entries: [Entry] = []

    init(_ text: String) {
        var tokens = Self.tokens(text)[...]
        var current: Entry?
        func finish() {
            if let current { entries.append(current) }
            current = nil
        }
        while let token = tokens.popFirst() {
            switch token {
            case "machine":
                finish()
                current = Entry(machine: tokens.popFirst() ?? "", login: "", password: "")
            case "default":
                finish()
                current = Entry(machine: nil, login: "", password: "")
            case "login": current?.login = tokens.popFirst() ?? ""
            case "password": current?.password = tokens.popFirst() ?? ""
            case "account": _ = tokens.popFirst()
            case "macdef":
                // A macro's body runs to an empty line, which tokens do not keep: reading stops here.
                finish()
                tokens = []
            default: break
            }
        }
        finish()
    }

    /// The entry for `host` (and `user`, when one is given), else the `default` entry.
    func entry(forHost host: String, user: String?) -> Entry? {
        let fits = { (entry: Entry) in user == nil || entry.login == user }
        return entries.first { $0.machine?.lowercased() == host.lowercased() && fits($0) }
            ?? entries.first { $0.machine == nil && fits($0) }
    }

    /// White-space separated tokens; a double-quoted token may hold spaces and `\"` (as curl reads it).
    private static func tokens(_ text: String) -> [String] {
        var tokens: [String] = []
        var iterator = text.makeIterator()
        var current = ""
        var quoted = false
        var inToken = false
        while let character = iterator.next() {
            if quoted {
                if character == "\\", let escaped = iterator.next() {
                    current.append(escaped)
                } else if character == "\"" {
                    quoted = false
                } else {
                    current.append(character)
                }
            } else if character.isWhitespace {
                if inToken { tokens.append(current) }
                current = ""
                inToken = false
            } else if character == "\"" && !inToken {
                quoted = true
                inToken = true
            } else {
                current.append(character)
                inToken = true
            }
        }
        if inToken { tokens.append(current) }
        return tokens
    }
}
