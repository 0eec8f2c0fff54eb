import HTTP
import Portable
import Snapshots
import TextSafety

/// Records in a WebDAV collection (Nextcloud, Apache mod_dav, nginx, rclone, ...), through libcurl.
///
/// - A write is a PUT to a hidden temporary name, then a MOVE onto the record with `Overwrite: T`: on
///   servers that overwrite in place (rclone, wsgidav) a reader could otherwise see half a record, and some
///   refuse a MOVE onto an existing record without the header. The collection is created with MKCOL
///   when missing (never its parents).
/// - A listing is one PROPFIND `Depth: 1`; each record's version is its ETag, treated as opaque (weak
///   prefix and quotes removed), or its modification time and length where the server sends no ETag.
///   With the parse cache, an unchanged store costs that one request: unchanged records are not fetched.
/// - Changed records are fetched in parallel over reused connections; the size limit is enforced while
///   downloading.
/// - Credentials live in the client, not in URLs: messages name the store without them.
public struct WebDAVStore: StagingStore {
    /// The collection's URL, ending in `/`, without userinfo.
    public let collection: String
    public let displayName: String
    let client: HTTPClient
    /// The collection's path, percent-decoded and without a trailing slash, to recognise it in listings.
    private let collectionPath: String

    /// Parallel downloads: enough to hide round trips, few enough not to look like an attack. A record
    /// read while another machine replaces it can come back truncated or briefly missing (see
    /// `StoreTraits`); up to six more reads, 20 to 640 ms apart, see the finished record (under a writer
    /// replacing one record every few milliseconds while the whole suite runs, four were not always
    /// enough). A sweep lists the whole collection, so it is not cheap.
    public var traits: StoreTraits { StoreTraits(readParallelism: 8, rereadsOfFailedRecords: 6, sweepsCheaply: false) }

    /// The host and port the collection is on, lower-cased, to recognise it in listings' full-URL hrefs.
    private let authority: String

    /// - Parameter url: a collection URL as `StoreLocation.parse` accepts it (no query, fragment or dot
    ///   segments); its userinfo is dropped.
    /// For a store nested in another (`nested(_:)`): the collections between the outer store and this
    /// one, outermost first, made when missing.
    private var parents: [String] = []

    /// The collection `name` inside this one, as a store.
    public func nested(_ name: DeviceID) -> (any RecordStore)? {
        guard let url = URL(string: collection + name.rawValue + "/") else { return nil }
        var store = WebDAVStore(url: url, client: client)
        store.parents = isNested ? parents + [collection] : []
        store.isNested = true
        return store
    }
    private var isNested = false

    public init(url: URL, client: HTTPClient) {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let scheme = (components?.scheme ?? "http").lowercased()
        let host = components?.percentEncodedHost ?? url.host ?? ""
        let port = components?.port.map { ":\($0)" } ?? ""
        var path = components?.percentEncodedPath ?? "/"
        if !path.hasPrefix("/") { path = "/" + path }
        if !path.hasSuffix("/") { path += "/" }
        collection = "\(scheme)://\(host)\(port)\(path)"
        displayName = collection
        self.client = client
        collectionPath = WebDAVListing.path(ofHref: path)
        authority = WebDAVListing.authority(scheme: scheme, hostAndPort: host + port)
    }

    public func listRecords() throws -> [RecordInfo] {
        // rclone can list a record twice while it is being replaced: one entry per name.
        var seen = Set<String>()
        var records: [RecordInfo] = []
        for member in try members() {
            guard RecordInfo.isRecordName(member.name), seen.insert(member.name).inserted else { continue }
            let modified = member.lastModified.flatMap(HTTPDate.parse)
            var version: RecordVersion?
            if let etag = member.etag {
                version = .entityTag(etag)
            } else if let modified = member.lastModified, let length = member.contentLength {
                version = .tag("modified \(modified), \(length) bytes")
            }
            records.append(
                RecordInfo(name: member.name, size: member.contentLength, modified: modified, version: version))
        }
        return records
    }

    public func removeLeftoverTemporaryFiles(of deviceID: DeviceID, olderThan age: TimeInterval, now: Date) {
        let prefix = "." + deviceID.recordName + "."
        for member in (try? members()) ?? [] where member.name.hasPrefix(prefix) && member.name.hasSuffix(".tmp") {
            guard let modified = member.lastModified.flatMap(HTTPDate.parse), now.timeIntervalSince(modified) > age
            else { continue }
            _ = try? client.send(HTTPRequest(method: "DELETE", url: try url(of: member.name)))
        }
    }

    /// The collection's files (not the collection itself, nor sub-collections), from one PROPFIND; a
    /// listing cut short is asked for again (up to six more times), never taken as the whole store.
    private func members() throws -> [WebDAVListing.Member] {
        // As for records (`traits.rereadsOfFailedRecords`): a damaged answer is mostly a replacement in flight on
        // the server (rclone appends an error text mid-replace), gone a few milliseconds later.
        var attempt = 1
        while true {
            do {
                return try membersOnce()
            } catch let error as WebDAVListing.ListingError where error.isCutShort {
                guard attempt <= traits.rereadsOfFailedRecords else {
                    throw StoreError.failed(
                        operation: "list", target: displayName,
                        reason: "the server's listing ended early \(attempt) times (line \(error.line)); not taken as "
                            + "the whole store")
                }
                usleep(UInt32(20_000 << (attempt - 1)))  // 20, 40, ... 640 ms
                attempt += 1
            }
        }
    }

    private func membersOnce() throws -> [WebDAVListing.Member] {
        let response = try send(
            "list", collection,
            HTTPRequest(
                method: "PROPFIND", url: collection,
                headers: [("Depth", "1"), ("Content-Type", "application/xml; charset=utf-8")],
                body: WebDAVListing.request))
        switch response.status {
        case 207: break
        case 404: throw StoreError.storeMissing(store: displayName)
        case 200..<300:
            throw StoreError.failed(
                operation: "list", target: displayName,
                reason: "the server answered PROPFIND with HTTP \(response.status), not a WebDAV listing")
        default: throw failure(response, "list", displayName)
        }
        let listing: WebDAVListing
        do {
            listing = try WebDAVListing(parsing: response.body)
        } catch let error as WebDAVListing.ListingError where !error.isCutShort {
            throw StoreError.failed(
                operation: "list", target: displayName,
                reason:
                    "the server's answer is not a WebDAV listing (bad XML at line \(error.line)\(error.detail.map { ": " + SafeText.line($0, limit: 80) } ?? ""))"
            )
        }
        // Only the collection's own files count. A listing is the server's word, and a hostile or confused
        // server may name anything: another folder (`../x.json`), a sub-collection's file, another host.
        // Such entries are ignored, never mapped by their last segment into this store.
        return listing.members.filter { member in
            !member.isCollection && member.parentPath == collectionPath
                && (member.hrefAuthority.map { $0 == authority } ?? true)
        }
    }

    public func readRecord(named name: String, maximumSize: Int) throws -> Data {
        let response = try send("read", name, HTTPRequest(url: try url(of: name), maximumBodySize: maximumSize))
        switch response.status {
        case 200: return response.body
        case 404, 410: throw StoreError.recordMissing(name: name)
        default: throw failure(response, "read", name)
        }
    }

    public func stageRecord(_ data: Data, for deviceID: DeviceID) throws -> StagedRecord {
        let staged = StagedRecord(
            deviceID: deviceID, temporaryName: StagedRecord.temporaryName(for: deviceID), contents: data)
        let put = HTTPRequest(
            method: "PUT", url: try url(of: staged.temporaryName), headers: [("Content-Type", "application/json")],
            body: data)
        var response = try send("write", staged.temporaryName, put)
        // A missing collection: 404 (rclone), 409 (Apache, wsgidav), or a 500 (nginx, after the client's
        // retries; only the first publish to a new store pays for them). Create it, then write again. A
        // collection that existed (405) means a 500 was something else; after a 404 or 409 another
        // writer made it meanwhile.
        if [404, 409, 500].contains(response.status) {
            let created = try createCollection()
            if created || response.status != 500 { response = try send("write", staged.temporaryName, put) }
        }
        guard response.isSuccess else { throw failure(response, "write", staged.deviceID.recordName) }
        return staged
    }

    /// MOVE is not idempotent: when its answer is lost (a broken connection, a passing 5xx), the move
    /// may or may not have happened, and sending it again blindly can destroy the record (rclone deletes
    /// the destination a repeated MOVE finds in the temporary name's place, then answers 403). So after
    /// such an answer the store looks first: the record holding what was staged means the move happened;
    /// the staged file still there means it did not, and the MOVE is sent again (up to the client's
    /// attempts); anything else is reported, with the record left as the server has it.
    public func commitRecord(_ staged: StagedRecord) throws {
        let target = staged.deviceID.recordName
        let move = HTTPRequest(
            method: "MOVE", url: try url(of: staged.temporaryName),
            headers: [("Destination", try url(of: target)), ("Overwrite", "T")])
        let retry = client.configuration.retry
        var attempt = 1
        while true {
            let outcome: String
            do {
                let response = try client.send(move)
                if response.isSuccess { return }
                guard response.isTransient else { throw failure(response, "replace", target) }
                outcome = "the server answered HTTP \(response.status)"
            } catch let error as HTTPError where error.kind == .connection {
                outcome = error.reason
            } catch let error as HTTPError {
                throw StoreError.failed(
                    operation: "replace", target: location(of: target), reason: error.reason)
            }
            // The move's outcome is unknown: look before moving again.
            if (try? readRecord(named: target, maximumSize: staged.contents.count + 1)) == staged.contents,
                !staged.contents.isEmpty
            {
                return
            }
            let stillStaged =
                (try? client.send(HTTPRequest(method: "HEAD", url: try url(of: staged.temporaryName))))?
                .isSuccess == true
            guard stillStaged, attempt < retry.attempts else {
                throw StoreError.failed(
                    operation: "replace", target: location(of: target),
                    reason: "\(outcome); the record does not hold what was written"
                        + (stillStaged ? " (gave up after \(attempt) attempts)" : ", and the staged copy is gone"))
            }
            retry.sleep(retry.delay(after: attempt))
            attempt += 1
        }
    }

    public func discardRecord(_ staged: StagedRecord) {
        guard let url = try? url(of: staged.temporaryName) else { return }
        _ = try? client.send(HTTPRequest(method: "DELETE", url: url))
    }

    public func removeRecord(for deviceID: DeviceID) throws {
        let name = deviceID.recordName
        let response = try send("remove", name, HTTPRequest(method: "DELETE", url: try url(of: name)))
        guard response.isSuccess || response.status == 404 else { throw failure(response, "remove", name) }
    }

    /// MKCOL of the store's own collection; its parent must exist. Returns whether it was made now (false:
    /// it existed already).
    private func createCollection() throws -> Bool {
        var response = try send("create", displayName, HTTPRequest(method: "MKCOL", url: collection))
        if response.status == 409, !parents.isEmpty {
            for parent in parents {
                let made = try send("create", parent, HTTPRequest(method: "MKCOL", url: parent))
                guard made.isSuccess || made.status == 405 else { throw failure(made, "create", parent) }
            }
            response = try send("create", displayName, HTTPRequest(method: "MKCOL", url: collection))
        }
        switch response.status {
        case 200..<300: return true
        case 405: return false
        case 409: throw StoreError.parentMissing(store: displayName)
        default: throw failure(response, "create", displayName)
        }
    }

    /// The URL of a file in the collection: the collection's path plus `name` encoded as one segment.
    /// Names are record names or temporary names (device ids are validated); anything else (empty, a dot
    /// segment, a name that would not stay one segment) is refused rather than sent.
    func url(of name: String) throws -> String {
        guard !name.isEmpty, name != ".", name != ".." else {
            throw StoreError.failed(
                operation: "address", target: location(of: name), reason: "not a file name in the collection")
        }
        return collection + Self.segmentCharacters.encode(name)
    }

    /// RFC 3986 `pchar` without `:` and `@` (harmless in a path, but some servers mistake them).
    private static let segmentCharacters = PercentEncoding(
        keeping: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=")

    /// Sends a request, turning a failure to get any answer into the store's error (a body over the
    /// request's limit: the record is too large).
    func send(_ operation: String, _ target: String, _ request: HTTPRequest) throws -> HTTPResponse {
        do {
            return try client.send(request)
        } catch let error as HTTPError {
            throw StoreError.transport(
                error, operation: operation, target: target, store: displayName, limit: request.maximumBodySize)
        }
    }

    /// A record quoted with its store (`name' in 'store`, inside the error's quotes), or the store itself.
    private func location(of target: String) -> String {
        StoreError.target(target, in: displayName)
    }

    /// The store's error for an unexpected status.
    func failure(_ response: HTTPResponse, _ operation: String, _ target: String) -> StoreError {
        switch response.status {
        case 401 where client.configuration.credentials == nil:
            return .permissionDenied(
                store: displayName,
                detail: "HTTP 401: the server wants a user name and password; give them in the URL, "
                    + "AGGCTL_WEBDAV_USER and AGGCTL_WEBDAV_PASSWORD, or ~/.netrc")
        case 401:
            return .permissionDenied(
                store: displayName, detail: "HTTP 401: the server refused the user name or password")
        case 403:
            return .permissionDenied(store: displayName, detail: "HTTP 403: not allowed to \(operation) '\(target)'")
        case 507:
            return .failed(
                operation: operation, target: location(of: target), reason: "HTTP 507: the server is out of space")
        default:
            return .failed(
                operation: operation, target: location(of: target),
                reason: "the server answered HTTP \(response.status)")
        }
    }
}
