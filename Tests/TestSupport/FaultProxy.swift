import Foundation
import HTTP

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
            log: folder.file("proxy.log"))
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

    public func clear() throws {
        try control("clear", body: Data())
    }

    /// Every request the proxy saw: method, path, and the fault applied (nil for none).
    public func requests() throws -> [(method: String, path: String, fault: String?)] {
        let response = try HTTPClient(.init(retry: .never)).send(HTTPRequest(url: origin + "/__fault__/log"))
        let entries = try JSONSerialization.jsonObject(with: response.body) as? [[String: Any]] ?? []
        return entries.map { ($0["method"] as? String ?? "", $0["path"] as? String ?? "", $0["action"] as? String) }
    }

    private func control(_ command: String, body: Data) throws {
        let response = try HTTPClient(.init(retry: .never)).send(
            HTTPRequest(method: "POST", url: origin + "/__fault__/" + command, body: body))
        guard response.status == 200 else {
            throw LocalServer.Failure(description: "fault proxy: \(command) answered HTTP \(response.status)")
        }
    }
}
