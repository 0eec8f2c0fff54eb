import HTTP
import Portable

/// Event claims in a WebDAV store: `<collection>alerts/<name>`, created by a PUT to a hidden name and a
/// MOVE onto the claim with `Overwrite: F`, which the server refuses with 412 when the claim exists.
///
/// Measured on the servers the tests run (2026-12-07): a PUT with `If-None-Match: *` is honoured by Apache
/// only (rclone answered 201 and nginx 204 to the second one, overwriting), while `MOVE` with
/// `Overwrite: F` onto an existing name got 412 from rclone, Apache and nginx alike.
struct WebDAVClaims: EventClaims {
    let store: WebDAVStore
    var isExclusive: Bool { true }

    private var folder: String { store.collection + "alerts/" }
    // A claim name is [A-Za-z0-9._-]: one path segment as it is.
    private func url(_ name: String) -> String { folder + name }

    func create(_ name: ClaimName, data: Data) throws -> Bool {
        let staged = "." + name.rawValue + "." + String(UInt32.random(in: 0...UInt32.max), radix: 16) + ".tmp"
        try put(staged, data)
        defer { _ = try? store.client.send(HTTPRequest(method: "DELETE", url: url(staged))) }
        let move = HTTPRequest(
            method: "MOVE", url: url(staged), headers: [("Destination", url(name.rawValue)), ("Overwrite", "F")])
        let response: HTTPResponse
        do {
            response = try store.client.send(move)
        } catch {
            // The answer was lost: the claim holding these bytes says the move was made.
            return (try? read(name))?.data == data && !data.isEmpty
        }
        switch response.status {
        case 200..<300: return true
        case 412: return false
        default: throw store.failure(response, "claim", name.rawValue)
        }
    }

    func read(_ name: ClaimName) throws -> (data: Data, modified: Date)? {
        let response = try store.send(
            "read claim", name.rawValue, HTTPRequest(url: url(name.rawValue), maximumBodySize: 4096))
        switch response.status {
        case 200: return (response.body, response.headers["last-modified"].flatMap(HTTPDate.parse) ?? Date())
        case 404, 410: return nil
        default: throw store.failure(response, "read claim", name.rawValue)
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
        for (name, modified) in (try? listed()) ?? [] where (modified ?? Date()) < date {
            _ = try? store.client.send(HTTPRequest(method: "DELETE", url: url(name.rawValue)))
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

    /// The claims folder's files (only its own: a listing is the server's word).
    private func listed() throws -> [(name: ClaimName, modified: Date?)] {
        let response = try store.send(
            "list claims", "alerts",
            HTTPRequest(
                method: "PROPFIND", url: folder,
                headers: [("Depth", "1"), ("Content-Type", "application/xml; charset=utf-8")],
                body: WebDAVListing.request))
        guard response.status == 207, let listing = try? WebDAVListing(parsing: response.body) else { return [] }
        let folderPath = WebDAVListing.path(ofHref: URLComponents(string: folder)?.percentEncodedPath ?? "")
        return listing.members.compactMap { member in
            guard !member.isCollection, member.parentPath == folderPath, let name = ClaimName(member.name) else {
                return nil
            }
            return (name, member.lastModified.flatMap(HTTPDate.parse))
        }
    }
}

extension WebDAVStore {
    public var claims: (any EventClaims)? { WebDAVClaims(store: self) }
}
