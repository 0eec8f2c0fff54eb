import Foundation

/// One running server per key for the whole test process, started on first use: servers start in well
/// under a second, but the suites make hundreds of stores on them.
public final class SharedServers<Key: Hashable, Server>: @unchecked Sendable {
    private let lock = NSLock()
    private var servers: [Key: Server] = [:]

    public init() {}

    /// The server for `key`, started by `start` the first time it is asked for.
    public func server(_ key: Key, start: () throws -> Server) throws -> Server {
        lock.lock()
        defer { lock.unlock() }
        if let running = servers[key] { return running }
        let started = try start()
        servers[key] = started
        return started
    }
}
