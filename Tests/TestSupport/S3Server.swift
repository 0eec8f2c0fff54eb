import Foundation
import HTTP
import Snapshots
import Stores

/// A real S3 server on 127.0.0.1 (SeaweedFS or moto), started through `script/s3-server`, with one bucket
/// made for the tests.
public final class S3Server: @unchecked Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        /// SeaweedFS's `weed mini`: checks signatures.
        case seaweedfs
        /// moto's server mode: accepts any signature.
        case moto

        /// The program under `.build/s3-venv/bin` that must be installed (script/bootstrap).
        public var program: String {
            switch self {
            case .seaweedfs: "weed"
            case .moto: "moto_server"
            }
        }

        /// Whether the server is installed here, or must be (under CI): see `RequiredTool`.
        public var isAvailable: Bool {
            ProcessInfo.processInfo.environment["CI"] == "true"
                || FileManager.default.isExecutableFile(atPath: Repository.path(".build/s3-venv/bin/\(program)"))
        }
    }

    public static let accessKey = "AKIAAGGCTLTESTKEY01"
    public static let secret = "s3cr3t-never-shown-anywhere"
    public static let bucket = "aggctl-tests"

    public let kind: Kind
    private let folder: TemporaryDirectory
    private let server: LocalServer
    /// Signs as the store does; for setting up what a store's own API cannot.
    public let client: HTTPClient

    /// `http://127.0.0.1:<port>`.
    public var origin: String { server.origin }

    /// What a process needs to use this server as its S3: endpoint, region and the one key.
    public var environment: [String: String] {
        [
            "AWS_ENDPOINT_URL": origin, "AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": Self.accessKey,
            "AWS_SECRET_ACCESS_KEY": Self.secret,
        ]
    }

    public init(_ kind: Kind) throws {
        self.kind = kind
        folder = TemporaryDirectory("aggctl-s3-\(kind)")
        let port = LocalServer.freePort()
        server = try LocalServer(
            [
                Repository.path("script/s3-server"), kind.rawValue, String(port), folder.file("root"), Self.accessKey,
                Self.secret,
            ],
            port: port, log: folder.file("server.log"), folder: folder, readyTimeout: 60)
        client = HTTPClient(
            .init(
                credentials: HTTPCredentials(user: Self.accessKey, password: Self.secret), timeout: .seconds(30),
                retry: .never, awsSignature: "aws:amz:us-east-1:s3"))
        // The S3 port may answer before the filer behind it is ready: make the bucket until that works.
        let deadline = Date().addingTimeInterval(60)
        while true {
            if let response = try? send("PUT", "/\(Self.bucket)"), response.isSuccess || response.status == 409 {
                break
            }
            guard Date() < deadline else {
                throw LocalServer.Failure(description: "\(kind) on \(origin) would not create a bucket")
            }
            usleep(100_000)
        }
    }

    /// One server of each kind per test process, started on first use.
    public static func shared(_ kind: Kind) throws -> S3Server {
        try registry.server(kind) { try S3Server(kind) }
    }

    /// A fresh prefix in the test bucket: `t-xxxxxxxx/`.
    public func makePrefix() -> String {
        "t-" + UUID().uuidString.prefix(8).lowercased() + "/"
    }

    /// A signed request to `path` (already encoded, starting with `/`), as the tests need it.
    @discardableResult
    public func send(_ method: String, _ path: String, body: Data? = nil, headers: [(String, String)] = []) throws
        -> HTTPResponse
    {
        var all = headers.map { (name: $0.0, value: $0.1) }
        all.append((name: "x-amz-content-sha256", value: SHA256.hex(body ?? Data())))
        if body != nil { all.append((name: "Content-Type", value: "application/octet-stream")) }
        return try client.send(HTTPRequest(method: method, url: origin + path, headers: all, body: body))
    }

    /// Puts `data` at `key` in the test bucket, past any store.
    public func put(_ key: String, _ data: Data) throws {
        let response = try send("PUT", "/\(Self.bucket)/\(key)", body: data)
        guard response.isSuccess else { throw LocalServer.Failure(description: "PUT \(key): HTTP \(response.status)") }
    }

    /// Every key under `prefix` in the test bucket, at any depth, relative to the prefix; sorted.
    public func keys(under prefix: String) throws -> [String] {
        // Encoded as SigV4's canonical form wants it: only RFC 3986's unreserved characters stay.
        let unreserved = CharacterSet(
            charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        let encoded = prefix.addingPercentEncoding(withAllowedCharacters: unreserved) ?? prefix
        let response = try send("GET", "/\(Self.bucket)/?list-type=2&prefix=\(encoded)")
        guard response.status == 200 else {
            throw LocalServer.Failure(description: "listing \(prefix): HTTP \(response.status)")
        }
        let text = String(decoding: response.body, as: UTF8.self)
        return text.components(separatedBy: "<Key>").dropFirst().compactMap { part in
            part.components(separatedBy: "</Key>").first.map { String($0.dropFirst(prefix.count)) }
        }.sorted()
    }

    /// A store at `s3://aggctl-tests/PREFIX`, opened as the binary opens it.
    public func store(
        prefix: String, environment: [String: String]? = nil, clock: @escaping @Sendable () -> Date = { Date() }
    )
        throws -> any RecordStore
    {
        let location = try StoreLocation.parse("s3://\(Self.bucket)/\(prefix)")
        let http = HTTPClient.Configuration(
            timeout: .seconds(60),
            retry: RetryPolicy(attempts: 4, initialDelay: 0.01, maximumDelay: 0.05, jitter: 0) {
                Thread.sleep(forTimeInterval: $0)
            })
        return try S3Backend().open(
            location,
            context: StoreContext(
                environment: environment ?? self.environment, home: folder.path, clock: clock, http: { http }))
    }

    private static let registry = SharedServers<Kind, S3Server>()
}
