import HTTP
import Portable
import Serialization
import Snapshots
import TextSafety

/// Records under a prefix of an S3 bucket (AWS S3, MinIO, Ceph RGW, Garage, SeaweedFS, R2, B2, ...).
///
/// - Requests are signed with AWS Signature V4 by libcurl. libcurl signs the URL as given, so every URL is
///   built canonically here: key segments and query values RFC 3986-encoded with upper-case hex, query
///   parameters sorted. `x-amz-content-sha256` carries the body's real SHA-256 (AWS requires the header;
///   a signed hash also means a proxy cannot change a record on its way). The date is libcurl's, from the
///   system clock: libcurl 7.88 sends an `x-amz-date` of the caller's a second time, and servers that join
///   repeated headers then compute another signature.
/// - A listing is `ListObjectsV2` under the prefix with `/` as delimiter, 1000 keys a page; each record's
///   version is its ETag, so with the parse cache an unchanged store of N records costs ceil(N/1000)
///   requests and nothing more. Changed records are fetched in parallel over pooled connections, the size
///   limit enforced while downloading.
/// - A write is one PUT of the whole record: S3 replaces an object atomically, so nothing is staged and
///   nothing can be left behind. Nothing is ever written outside `PREFIX/`, and a bucket is never made.
public struct S3Store: RecordStore {
    public let displayName: String
    let location: S3Location
    let settings: S3Settings
    private let client: HTTPClient
    private let clock: @Sendable () -> Date
    /// `https://bucket.s3.region.amazonaws.com` (virtual-hosted) or `http://host:port/bucket` (path-style).
    private let baseURL: String

    /// Round trips dominate on a real S3, and a server takes many connections at once.
    public var traits: StoreTraits {
        StoreTraits(
            readParallelism: 16, rereadsOfFailedRecords: 0, writesAtomicallyInPlace: true,
            firstWriteCreatesStore: false, sweepsCheaply: true)
    }

    /// The longest listing read: a hostile or broken server that never stops paging is cut off.
    static let maximumPages = 10_000

    init(
        location: S3Location, settings: S3Settings, http: HTTPClient.Configuration,
        clock: @escaping @Sendable () -> Date
    ) {
        self.location = location
        self.settings = settings
        self.clock = clock
        displayName = location.displayName
        if settings.pathStyle {
            baseURL = settings.endpoint + "/" + Self.encode(location.bucket)
        } else {
            let schemeEnd = settings.endpoint.firstRange(of: "://")!.upperBound
            baseURL = settings.endpoint[..<schemeEnd] + location.bucket + "." + settings.endpoint[schemeEnd...]
        }
        var configuration = http
        if let credentials = settings.credentials {
            configuration.credentials = HTTPCredentials(user: credentials.accessKey, password: credentials.secret)
            configuration.awsSignature = "aws:amz:\(settings.region):s3"
        }
        client = HTTPClient(configuration)
    }

    private init(nesting name: DeviceID, in outer: S3Store) {
        location = S3Location(bucket: outer.location.bucket, prefix: outer.location.prefix + name.rawValue + "/")
        (settings, client, clock, baseURL) = (outer.settings, outer.client, outer.clock, outer.baseURL)
        displayName = location.displayName
    }

    /// The keys under `<prefix><name>/`, as a store (one client: its connections serve both).
    public func nested(_ name: DeviceID) -> (any RecordStore)? { S3Store(nesting: name, in: self) }

    // MARK: Listing

    public func listRecords() throws -> [RecordInfo] {
        var records: [RecordInfo] = []
        var seen = Set<String>()
        var token: String?
        var tokens = Set<String>()
        for _ in 0..<Self.maximumPages {
            let page = try listPage(after: token)
            for object in page.objects {
                // Only keys directly under the prefix count: a listing is the server's word. Compared as
                // bytes: Foundation's string search costs more per key than reading the listing.
                let key = object.key.utf8
                guard key.starts(with: location.prefix.utf8) else { continue }
                let rest = key.dropFirst(location.prefix.utf8.count)
                guard !rest.contains(UInt8(ascii: "/")), let name = String(rest), RecordInfo.isRecordName(name),
                    seen.insert(name).inserted
                else { continue }
                records.append(
                    RecordInfo(
                        name: name, size: object.size, modified: object.lastModified.flatMap(RFC3339.parse),
                        version: object.etag.map(RecordVersion.entityTag)))
            }
            guard page.isTruncated else { return records }
            guard let next = page.nextContinuationToken, !next.isEmpty, tokens.insert(next).inserted else {
                throw StoreError.failed(
                    operation: "list", target: displayName,
                    reason: "the server said the listing goes on but gave no new continuation token; not taken as "
                        + "the whole store")
            }
            token = next
        }
        throw StoreError.failed(
            operation: "list", target: displayName, reason: "the listing ran past \(Self.maximumPages) pages")
    }

    /// One `ListObjectsV2` page, starting after `token`. A page whose document stopped early (a proxy or a
    /// dying server cut it off without a length) is asked for again, twice at most, then the listing fails:
    /// it is never taken as a smaller store.
    func listPage(after token: String?) throws -> S3ListingPage {
        var attempt = 1
        while true {
            let response = try send("list", displayName, listRequest(after: token))
            guard response.status == 200 else { throw failure(response, "list", displayName) }
            do {
                return try S3ListingPage(parsing: response.body)
            } catch  where error.isCutShort && attempt < 3 {
                attempt += 1
            } catch {
                throw StoreError.failed(
                    operation: "list", target: displayName,
                    reason: error.isCutShort
                        ? "the server's listing ended early \(attempt) times (line \(error.line)); not taken as the whole store"
                        : "the server's answer is not an S3 listing (line \(error.line): \(SafeText.line(error.detail, limit: 80)))"
                )
            }
        }
    }

    /// The `ListObjectsV2` request for the page of the prefix after `token`: the keys directly under it.
    func listRequest(after token: String?, maximumKeys: Int = 1000) -> HTTPRequest {
        var query = [
            ("delimiter", "/"), ("list-type", "2"), ("max-keys", String(maximumKeys)), ("prefix", location.prefix),
        ]
        if let token { query.append(("continuation-token", token)) }
        return request("GET", key: nil, query: query)
    }

    // MARK: Records

    public func readRecord(named name: String, maximumSize: Int) throws -> Data {
        let response = try send("read", name, request("GET", key: try key(of: name), maximumBodySize: maximumSize))
        switch response.status {
        case 200: return response.body
        case 404 where S3ErrorDocument(parsing: response.body).code != "NoSuchBucket":
            throw StoreError.recordMissing(name: name)
        default: throw failure(response, "read", name)
        }
    }

    public func writeRecord(_ data: Data, for deviceID: DeviceID) throws {
        let name = deviceID.recordName
        let put = request(
            "PUT", key: try key(of: name), headers: [("Content-Type", "application/json")], body: data)
        let response = try send("write", name, put)
        guard response.isSuccess else { throw failure(response, "write", name) }
    }

    public func removeRecord(for deviceID: DeviceID) throws {
        let name = deviceID.recordName
        let response = try send("remove", name, request("DELETE", key: try key(of: name)))
        guard
            response.isSuccess
                || response.status == 404 && S3ErrorDocument(parsing: response.body).code != "NoSuchBucket"
        else { throw failure(response, "remove", name) }
    }

    // MARK: Requests

    /// The key of a record: the prefix plus `name`, which must stay one segment.
    func key(of name: String) throws -> String {
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/"), !SafeText.hasControlCharacters(name)
        else {
            throw StoreError.failed(
                operation: "address", target: StoreError.target(name, in: displayName),
                reason: "not a record name")
        }
        return location.prefix + name
    }

    /// A signed request for `key` (nil: the bucket), its URL canonical as libcurl must sign it.
    func request(
        _ method: String, key: String?, query: [(String, String)] = [], headers: [(String, String)] = [],
        body: Data? = nil, maximumBodySize: Int? = nil
    ) -> HTTPRequest {
        var url = baseURL + "/"
        if let key {
            let segments = key.split(separator: "/", omittingEmptySubsequences: false)
            url += segments.map { Self.encode(String($0)) }.joined(separator: "/")
        }
        if !query.isEmpty {
            // Encoded first, then sorted: SigV4 orders the encoded names (all ASCII by then).
            let encoded: [(name: String, value: String)] = query.map { (Self.encode($0.0), Self.encode($0.1)) }
            let sorted = encoded.sorted { ($0.name, $0.value) < ($1.name, $1.value) }
            url += "?" + sorted.map { $0.name + "=" + $0.value }.joined(separator: "&")
        }
        var all: [(name: String, value: String)] = headers.map { (name: $0.0, value: $0.1) }
        all.append((name: "x-amz-content-sha256", value: body.map { SHA256.hex($0) } ?? Self.emptyPayloadHash))
        if let token = settings.credentials?.sessionToken { all.append((name: "x-amz-security-token", value: token)) }
        return HTTPRequest(
            method: method, url: url, headers: all, body: body, maximumBodySize: maximumBodySize,
            followsRedirects: false)
    }

    /// The SHA-256 of no bytes, what every request without a body signs.
    static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// RFC 3986 unreserved characters stay; everything else is `%XX` with upper-case hex, as SigV4's
    /// canonical form wants (`+` and `%2f` would sign differently than the server computes).
    static func encode(_ text: String) -> String {
        PercentEncoding.unreserved.encode(text)
    }

    /// Sends a request, turning a failure to get any answer into the store's error.
    func send(_ operation: String, _ target: String, _ request: HTTPRequest) throws -> HTTPResponse {
        do {
            return try client.send(request)
        } catch let error as HTTPError {
            throw StoreError.transport(
                error, operation: operation, target: target, store: displayName, limit: request.maximumBodySize)
        }
    }

    /// The store's error for an S3 error answer, in words that say what to do.
    func failure(_ response: HTTPResponse, _ operation: String, _ target: String) -> StoreError {
        let explanation = S3ErrorExplanation(
            response: response, bucket: location.bucket, settings: settings, now: clock())
        let quoted = StoreError.target(target, in: displayName)
        if explanation.isPermission {
            return .permissionDenied(store: displayName, detail: explanation.text(operation: operation, target: target))
        }
        return .failed(
            operation: operation, target: quoted, reason: explanation.text(operation: operation, target: target))
    }
}
