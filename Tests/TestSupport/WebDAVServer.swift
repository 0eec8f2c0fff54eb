import Foundation

/// A real WebDAV server on 127.0.0.1 serving a temporary folder, started through `script/webdav-server`.
public final class WebDAVServer: @unchecked Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        /// No preconditions honoured; a plain overwrite is not atomic.
        case rclone
        /// Apache mod_dav_fs: strict preconditions, weak ETags for fresh files.
        case apache
        /// nginx with dav-ext: no ETags in listings (dates and lengths only), a 500 for a PUT into a
        /// missing collection.
        case nginx

        /// The program that must be installed.
        public var tool: String {
            switch self {
            case .rclone: "rclone"
            case .apache: "apache2"
            case .nginx: "nginx"
            }
        }
    }

    public static let user = "aggctl"
    public static let password = "pa55-w0rd-never-shown"

    public let kind: Kind
    /// The folder the server serves.
    public let root: String
    private let folder: TemporaryDirectory
    private let server: LocalServer

    /// - Parameter digest: HTTP Digest authentication instead of Basic (Apache only).
    public init(_ kind: Kind, digest: Bool = false) throws {
        self.kind = kind
        folder = TemporaryDirectory("aggctl-dav-\(kind)")
        root = folder.file("root")
        // Apache serves as `nobody` when started by root: it must reach the served folder.
        chmod(folder.path, 0o755)
        let port = LocalServer.freePort()
        server = try LocalServer(
            [
                "env", "WEBDAV_AUTH=\(digest ? "digest" : "basic")", Repository.path("script/webdav-server"),
                kind.rawValue, String(port), root, Self.user, Self.password,
            ],
            port: port, log: folder.file("server.log"), folder: folder)
    }

    /// The log of requests, one "METHOD PATH STATUS" line each (Apache and nginx; empty for rclone), once
    /// it has settled: a server logs a request after answering it, so a client that has all its answers
    /// (records read in parallel finish together) can be ahead of the last lines. Read until it has
    /// stayed the same for 250 ms, for at most 5 s: under a full test run a worker on this 2-core machine
    /// was seen to write its line more than 50 ms after its answer, and one quiet gap of 50 ms then
    /// returned the log one GET short.
    public func requestLog() -> [String] {
        func read() -> String { (try? String(contentsOfFile: root + ".run/access.log", encoding: .utf8)) ?? "" }
        var text = read()
        var quiet = 0
        var polls = 0
        while quiet < 5 && polls < 100 {
            Thread.sleep(forTimeInterval: 0.05)
            polls += 1
            let again = read()
            quiet = again == text ? quiet + 1 : 0
            text = again
        }
        return text.split(separator: "\n").map(String.init)
    }

    /// `http://127.0.0.1:<port>`, no credentials.
    public var origin: String { server.origin }

    /// One server of each kind per test process, started on first use: servers start in well under a
    /// second, but the suites make hundreds of stores.
    public static func shared(_ kind: Kind, digest: Bool = false) throws -> WebDAVServer {
        try registry.server("\(kind)\(digest ? "-digest" : "")") { try WebDAVServer(kind, digest: digest) }
    }

    /// A new empty folder inside the served root, world-writable (Apache serves as `nobody` under root).
    public func makeFolder() throws -> String {
        let name = "t-" + UUID().uuidString.prefix(8).lowercased()
        let path = root + "/" + name
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        chmod(path, 0o777)
        return name
    }

    private static let registry = SharedServers<String, WebDAVServer>()
}
