import Foundation
import HTTP
import Snapshots
import Stores

/// `Tests/Servers/fault_proxy.py` in front of a real server: forwards every request, and breaks the ones
/// a test asks it to (answers lost after the request took effect, bodies cut short, stalls, 503s).
public final class FaultProxy: @unchecked Sendable {
    private let server: LocalServer
    private let folder: TemporaryDirectory

    /// `http://127.0.0.1:<port>`: use it in place of the upstream's origin.
    public var origin: String { server.origin }

    /// - Parameter keepsHost: forward the client's Host header unchanged, as a signed S3 request needs.
    public init(upstream: String, keepsHost: Bool = false) throws {
        folder = TemporaryDirectory("aggctl-fault-proxy")
        let port = LocalServer.freePort()
        server = try LocalServer(
            ["python3", Repository.path("Tests/Servers/fault_proxy.py"), String(port), upstream]
                + (keepsHost ? ["--keep-host"] : []), port: port,
            log: folder.file("proxy.log"), folder: folder)
    }

    /// What the proxy does to the next `count` requests of `method` whose path contains `path` (see the
    /// script's header for the actions and their parameters).
    public func inject(
        _ action: String, method: String = "*", path: String = "", count: Int = 1, parameters: [String: Any] = [:]
    ) throws {
        var rule: [String: Any] = ["action": action, "method": method, "path": path, "count": count]
        rule.merge(parameters) { $1 }
        try control("rule", body: try JSONSerialization.data(withJSONObject: rule))
    }

    /// Drops every rule, and starts counting the peak of requests in flight afresh.
    public func clear() throws {
        try control("clear", body: Data())
    }

    /// Every request the proxy saw: method, path, and the fault applied (nil for none).
    public func requests() throws -> [(method: String, path: String, fault: String?)] {
        let response = try HTTPClient(.init(retry: .never)).send(HTTPRequest(url: origin + "/__fault__/log"))
        let entries = try JSONSerialization.jsonObject(with: response.body) as? [[String: Any]] ?? []
        return entries.map { ($0["method"] as? String ?? "", $0["path"] as? String ?? "", $0["action"] as? String) }
    }

    /// The most requests the proxy was handling at once (its own control requests aside).
    public func peakConcurrency() throws -> Int {
        let response = try HTTPClient(.init(retry: .never)).send(HTTPRequest(url: origin + "/__fault__/peak"))
        let answer = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        return answer?["peak"] as? Int ?? 0
    }

    private func control(_ command: String, body: Data) throws {
        let response = try HTTPClient(.init(retry: .never)).send(
            HTTPRequest(method: "POST", url: origin + "/__fault__/" + command, body: body))
        guard response.status == 200 else {
            throw LocalServer.Failure(description: "fault proxy: \(command) answered HTTP \(response.status)")
        }
    }
}

extension FaultProxy {
    /// Writes `count` records into `store`, has the proxy hold every GET of a record for `latency`
    /// seconds, reads the store as a first run does, and returns the most GETs it had in flight at once
    /// with what was read. Held that long, a reader that sends `n` at once has all `n` waiting together.
    public func peakWhileReading(
        _ store: any RecordStore, records count: Int, latency: Double = 0.3
    ) throws -> (peak: Int, contents: StoreContents) {
        for index in 0..<count {
            let id = DeviceID(rawValue: "parallel-\(index)")!
            try store.writeRecord(StoreConformance.record(id), for: id)
        }
        try clear()
        try inject("latency", method: "GET", path: ".json", count: count, parameters: ["seconds": latency])
        let contents = try store.readContents()
        return (try peakConcurrency(), contents)
    }
}
