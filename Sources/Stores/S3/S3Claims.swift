import HTTP
import Portable
import Serialization
import Snapshots

/// Event claims in an S3 store: `<prefix>alerts/<name>`, created with a PUT carrying `If-None-Match: *`,
/// which AWS S3 (since 2024), SeaweedFS and moto answer 412 when the key exists (measured with the
/// servers the tests run: a second conditional PUT of one key got PreconditionFailed on both).
struct S3Claims: EventClaims {
    let store: S3Store
    var isExclusive: Bool { true }

    private func key(_ name: ClaimName) throws -> String { try store.key(of: "alerts") + "/" + name.rawValue }

    func create(_ name: ClaimName, data: Data) throws -> Bool {
        let put = store.request("PUT", key: try key(name), headers: [("If-None-Match", "*")], body: data)
        let response = try store.send("claim", name.rawValue, put)
        switch response.status {
        case 200..<300: return true
        // 412: it exists; 409: another conditional write of the key is in flight (AWS says try again, and
        // the other one wins).
        case 412, 409: return false
        default: throw store.failure(response, "claim", name.rawValue)
        }
    }

    func read(_ name: ClaimName) throws -> (data: Data, modified: Date)? {
        let response = try store.send(
            "read claim", name.rawValue, store.request("GET", key: try key(name), maximumBodySize: 4096))
        switch response.status {
        case 200:
            let modified = response.headers["last-modified"].flatMap(HTTPDate.parse) ?? Date()
            return (response.body, modified)
        case 404: return nil
        default: throw store.failure(response, "read claim", name.rawValue)
        }
    }

    func replace(_ name: ClaimName, data: Data) throws {
        let response = try store.send(
            "write claim", name.rawValue, store.request("PUT", key: try key(name), body: data))
        guard response.isSuccess else { throw store.failure(response, "write claim", name.rawValue) }
    }

    func names() throws -> [ClaimName] {
        try listed().map(\.name)
    }

    func removeClaims(olderThan date: Date) {
        for (name, modified) in (try? listed()) ?? [] where (modified ?? Date()) < date {
            _ = try? store.send("remove claim", name.rawValue, store.request("DELETE", key: try key(name)))
        }
    }

    /// The claims under `alerts/`, one listing page at most (claims live 30 days: a thousand is plenty).
    private func listed() throws -> [(name: ClaimName, modified: Date?)] {
        let prefix = try store.key(of: "alerts") + "/"
        let request = store.request(
            "GET", key: nil, query: [("delimiter", "/"), ("list-type", "2"), ("max-keys", "1000"), ("prefix", prefix)])
        let response = try store.send("list claims", "alerts", request)
        guard response.status == 200 else { throw store.failure(response, "list claims", "alerts") }
        guard let page = try? S3ListingPage(parsing: response.body) else { return [] }
        return page.objects.compactMap { object in
            guard object.key.hasPrefix(prefix), let name = ClaimName(String(object.key.dropFirst(prefix.count)))
            else { return nil }
            return (name, object.lastModified.flatMap(RFC3339.parse))
        }
    }
}

extension S3Store {
    public var claims: (any EventClaims)? { S3Claims(store: self) }
}
