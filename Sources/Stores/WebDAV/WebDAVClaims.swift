import HTTP
import Portable

/// Event claims in a WebDAV store: `<collection>alerts/<name>/claim`. A claim is won by the one machine
/// that both makes the collection `alerts/<name>/` (MKCOL) and moves its bytes into it without overwriting
/// (a PUT to a hidden name, then MOVE with `Overwrite: F`).
///
/// Two gates because no one request is exclusive on every server. Measured on the servers the tests run
/// (2026-12-07, eight clients at once, 60 races each, `docs/webdav-stores.md`): Apache's MKCOL let exactly
/// one win every race but its MOVE let two win 13 races of 60 (it checks, then renames); rclone's MOVE let
/// one win every race (its lock table) but its MKCOL answered 201 to all eight; nginx held both. Passing
/// both gates is exclusive wherever either one is. A PUT with `If-None-Match: *` is honoured by Apache only.
///
/// Claims older aggctl versions wrote are files, `alerts/<name>`: they read as claims, and each layout
/// refuses the other's create (MKCOL onto a file gets 405, MOVE onto a collection 412).
struct WebDAVClaims: EventClaims {
    let store: WebDAVStore
    var isExclusive: Bool { true }

    private var folder: String { store.collection + "alerts/" }
    // A claim name is [A-Za-z0-9._-]: one path segment as it is.
    private func url(_ name: String) -> String { folder + name }
    private func collection(_ name: ClaimName) -> String { folder + name.rawValue + "/" }

    func create(_ name: ClaimName, data: Data) throws -> Bool {
        guard try makeCollection(name) else { return false }
        let staged = collection(name) + ".claim." + String(UInt32.random(in: 0...UInt32.max), radix: 16) + ".tmp"
        let put = try store.send("claim", name.rawValue, HTTPRequest(method: "PUT", url: staged, body: data))
        guard put.isSuccess else { throw store.failure(put, "claim", name.rawValue) }
        defer { _ = try? store.client.send(HTTPRequest(method: "DELETE", url: staged)) }
        let move = HTTPRequest(
            method: "MOVE", url: staged, headers: [("Destination", collection(name) + "claim"), ("Overwrite", "F")])
        let response: HTTPResponse
        do {
            response = try store.client.send(move)
        } catch {
            // The answer was lost: the claim holding these bytes says the move was made.
            return (try? read(name))?.data == data && !data.isEmpty
        }
        switch response.status {
        case 200..<300: return true
        // 412: the claim is there; 423: another machine's move onto it holds the server's lock (rclone).
        case 412, 423: return false
        default: throw store.failure(response, "claim", name.rawValue)
        }
    }

    /// Makes `alerts/<name>/`: true when this request made it (or the server cannot tell, as rclone
    /// answers 201 to each of eight at once), false when it is there. The claims folder is made when
    /// missing; an answer that is neither is a failure unless the claim now exists (Apache answers a
    /// MKCOL that lost the race 403, rclone a locked one 423).
    private func makeCollection(_ name: ClaimName) throws -> Bool {
        let request = HTTPRequest(method: "MKCOL", url: collection(name))
        var response = try store.send("claim", name.rawValue, request)
        if [404, 409, 500].contains(response.status) {
            _ = try store.send("create", "alerts", HTTPRequest(method: "MKCOL", url: folder))
            response = try store.send("claim", name.rawValue, request)
        }
        switch response.status {
        case 201: return true
        case 405: return false
        default:
            if try exists(name) { return false }
            throw store.failure(response, "claim", name.rawValue)
        }
    }

    func read(_ name: ClaimName) throws -> (data: Data, modified: Date)? {
        let response = try store.send(
            "read claim", name.rawValue, HTTPRequest(url: collection(name) + "claim", maximumBodySize: 4096))
        switch response.status {
        case 200: return (response.body, modified(response.headers["last-modified"]))
        case 404, 409, 410: break
        default: throw store.failure(response, "read claim", name.rawValue)
        }
        // No bytes in a claim's collection: a claim being written (the collection's time stands for it), a
        // claim file an older version wrote, or none.
        guard let found = try member(name) else { return nil }
        guard !found.isCollection else { return (Data(), modified(found.lastModified)) }
        let file = try store.send(
            "read claim", name.rawValue, HTTPRequest(url: url(name.rawValue), maximumBodySize: 4096))
        switch file.status {
        case 200: return (file.body, modified(file.headers["last-modified"]))
        case 404, 410: return nil
        default: throw store.failure(file, "read claim", name.rawValue)
        }
    }

    func replace(_ name: ClaimName, data: Data) throws {
        let staged = "." + name.rawValue + "." + String(UInt32.random(in: 0...UInt32.max), radix: 16) + ".tmp"
        try put(staged, data)
        let move = HTTPRequest(
            method: "MOVE", url: url(staged), headers: [("Destination", url(name.rawValue)), ("Overwrite", "T")])
        let response = try store.send("write claim", name.rawValue, move)
        guard response.isSuccess else {
            _ = try? store.client.send(HTTPRequest(method: "DELETE", url: url(staged)))
            throw store.failure(response, "write claim", name.rawValue)
        }
    }

    func names() throws -> [ClaimName] { try listed().map(\.name) }

    func removeClaims(olderThan date: Date) {
        for claim in (try? listed()) ?? [] where (claim.modified ?? Date()) < date {
            let target = claim.isCollection ? collection(claim.name) : url(claim.name.rawValue)
            _ = try? store.client.send(HTTPRequest(method: "DELETE", url: target))
        }
    }

    /// PUTs `bytes` under `name` in the claims folder, making the folder when the server says it is missing.
    private func put(_ name: String, _ bytes: Data) throws {
        let request = HTTPRequest(method: "PUT", url: url(name), body: bytes)
        var response = try store.send("claim", name, request)
        if [404, 409, 500].contains(response.status) {
            _ = try store.send("create", "alerts", HTTPRequest(method: "MKCOL", url: folder))
            response = try store.send("claim", name, request)
        }
        guard response.isSuccess else { throw store.failure(response, "claim", name) }
    }

    private func exists(_ name: ClaimName) throws -> Bool { try member(name) != nil }

    /// What the server says `alerts/<name>` is (PROPFIND `Depth: 0`), or nil when it is not there.
    private func member(_ name: ClaimName) throws -> WebDAVListing.Member? {
        let response = try store.send(
            "read claim", name.rawValue, propfind(url(name.rawValue), depth: "0"))
        switch response.status {
        case 207:
            guard let listing = try? WebDAVListing(parsing: response.body) else {
                throw StoreError.failed(
                    operation: "read claim", target: name.rawValue, reason: "the server's answer is not a listing")
            }
            return listing.members.first
        case 404, 410: return nil
        default: throw store.failure(response, "read claim", name.rawValue)
        }
    }

    /// The claims folder's claims, collections and files alike (only its own: a listing is the server's word).
    private func listed() throws -> [(name: ClaimName, modified: Date?, isCollection: Bool)] {
        let response = try store.send("list claims", "alerts", propfind(folder, depth: "1"))
        guard response.status == 207, let listing = try? WebDAVListing(parsing: response.body) else { return [] }
        let folderPath = WebDAVListing.path(ofHref: URLComponents(string: folder)?.percentEncodedPath ?? "")
        return listing.members.compactMap { member in
            guard member.parentPath == folderPath, let name = ClaimName(member.name) else { return nil }
            return (name, member.lastModified.flatMap(HTTPDate.parse), member.isCollection)
        }
    }

    private func propfind(_ target: String, depth: String) -> HTTPRequest {
        HTTPRequest(
            method: "PROPFIND", url: target,
            headers: [("Depth", depth), ("Content-Type", "application/xml; charset=utf-8")],
            body: WebDAVListing.request)
    }

    private func modified(_ header: String?) -> Date { header.flatMap(HTTPDate.parse) ?? Date() }
}

extension WebDAVStore {
    public var claims: (any EventClaims)? { WebDAVClaims(store: self) }
}
