import CMicroHTTPD
import Portable

/// A request as the server hands it over: only what `serve` reads (no body is ever read).
public struct HTTPRequest: Sendable {
    public let method: String
    /// The path as sent, query included (never decoded: the routes are fixed strings).
    public let target: String
    /// The port the request came in on: the one the server listens on.
    public let port: Int
    let headerLookup: @Sendable (String) -> String?

    /// A request header's value (the first of its name, case-insensitive), or nil.
    public func header(_ name: String) -> String? { headerLookup(name) }

    public init(method: String, target: String, port: Int, headers: @escaping @Sendable (String) -> String?) {
        self.method = method
        self.target = target
        self.port = port
        headerLookup = headers
    }
}

public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public static func == (left: HTTPResponse, right: HTTPResponse) -> Bool {
        left.status == right.status && left.body == right.body
            && left.headers.map { [$0.name, $0.value] } == right.headers.map { [$0.name, $0.value] }
    }
}

/// An HTTP server on libmicrohttpd (opened on first use): one polling thread, every request answered by
/// `handler` from its headers, within the limits given. The protocol is libmicrohttpd's; aggctl parses no
/// HTTP.
public final class HTTPServer: @unchecked Sendable {
    /// What the server allows (docs/serve.md, "Limits").
    public struct Limits: Sendable, Equatable {
        public var connections: Int
        public var connectionsPerAddress: Int
        /// A connection that sends or reads nothing this long is closed.
        public var idleSeconds: Int
        /// A request whose headers take longer than this to arrive (from the connection's start, or the
        /// end of its last request) is cut off, however steadily its bytes come.
        public var requestSeconds: Int
        /// Memory a connection may use, its request's headers included (a request whose headers do not
        /// fit is answered 431).
        public var memoryPerConnection: Int
        /// An answer still being sent this long after it began is cut off: a reader taking a byte now and
        /// then is never idle, and would hold the answer as long as it liked.
        public var answerSeconds: Int

        public static let `default` = Limits(
            connections: 256, connectionsPerAddress: 64, idleSeconds: 10, requestSeconds: 10,
            memoryPerConnection: 32 * 1024, answerSeconds: 120)

        public init(
            connections: Int, connectionsPerAddress: Int, idleSeconds: Int, requestSeconds: Int,
            memoryPerConnection: Int, answerSeconds: Int = 120
        ) {
            self.connections = connections
            self.connectionsPerAddress = connectionsPerAddress
            self.idleSeconds = idleSeconds
            self.requestSeconds = requestSeconds
            self.memoryPerConnection = memoryPerConnection
            self.answerSeconds = answerSeconds
        }
    }

    public struct StartError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    private let handler: @Sendable (HTTPRequest) -> HTTPResponse
    private var daemon: UnsafeMutableRawPointer?
    /// The port it listens on (the one the system chose for port 0).
    public private(set) var port: Int = 0

    private init(handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        self.handler = handler
    }

    /// Starts listening on `address`.
    /// - Throws: `StartError`: libmicrohttpd missing (what to install), or the address cannot be bound.
    public static func start(
        on address: ListenAddress, limits: Limits = .default,
        handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse
    ) throws(StartError) -> HTTPServer {
        if let error = aggctl_mhd_load_error() { throw StartError(description: String(cString: error)) }
        let server = HTTPServer(handler: handler)
        let settings = aggctl_mhd_limits(
            connections: UInt32(limits.connections), connections_per_ip: UInt32(limits.connectionsPerAddress),
            idle_seconds: UInt32(limits.idleSeconds), request_seconds: UInt32(limits.requestSeconds),
            memory_per_connection: limits.memoryPerConnection, answer_seconds: UInt32(limits.answerSeconds))
        // The server is kept alive by the daemon's context for as long as it runs (released in `stop`).
        let context = Unmanaged.passRetained(server).toOpaque()
        errno = 0
        let daemon = address.withSocketAddress { socket, length in
            aggctl_mhd_start(socket, length, settings, HTTPServer.answer, context)
        }
        guard let daemon else {
            Unmanaged<HTTPServer>.fromOpaque(context).release()
            let reason = errno == 0 ? "libmicrohttpd could not start" : String(cString: strerror(errno)).lowercased()
            throw StartError(description: "cannot listen on \(address): \(reason)")
        }
        server.daemon = daemon
        server.port = Int(aggctl_mhd_port(daemon))
        return server
    }

    /// Stops answering; a request being answered is finished first.
    public func stop() {
        guard let daemon else { return }
        self.daemon = nil
        aggctl_mhd_stop(daemon)
        Unmanaged.passUnretained(self).release()
    }

    /// libmicrohttpd's call for each request, on its polling thread.
    private static let answer: aggctl_mhd_handler = { context, connection, method, target in
        guard let context, let connection, let method, let target else { return }
        let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
        // Valid only during this call: the request is answered before it returns.
        let handle = UInt(bitPattern: connection)
        let request = HTTPRequest(
            method: String(cString: method), target: String(cString: target),
            port: Int(aggctl_mhd_connection_port(connection))
        ) { name in
            guard let pointer = UnsafeMutableRawPointer(bitPattern: handle),
                let value = aggctl_mhd_header(pointer, name)
            else { return nil }
            return String(cString: value)
        }
        let response = server.handler(request)
        let names = response.headers.map { strdup($0.name) }
        let values = response.headers.map { strdup($0.value) }
        defer { for pointer in names + values { free(pointer) } }
        let constNames = names.map { UnsafePointer($0) }
        let constValues = values.map { UnsafePointer($0) }
        guard response.body.count > Int(AGGCTL_MHD_BLOCK) else {
            _ = response.body.withUnsafeBytes { body in
                aggctl_mhd_respond(
                    connection, UInt32(response.status), body.baseAddress, body.count, constNames, constValues,
                    response.headers.count)
            }
            return
        }
        // A large answer is not copied per reader: the connection keeps the body alive (it shares its storage
        // with the served view) and libmicrohttpd takes it a block at a time as the client reads.
        let source = Unmanaged.passRetained(SharedBody(response.body)).toOpaque()
        _ = aggctl_mhd_respond_shared(
            connection, UInt32(response.status), UInt64(response.body.count), constNames, constValues,
            response.headers.count, source, SharedBody.read, SharedBody.release)
    }
}

/// A large answer's bytes, held once for every connection sending it; released by the last of them.
private final class SharedBody {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    static let read: aggctl_mhd_reader = { source, position, buffer, max in
        guard let source, let buffer else { return -1 }
        let body = Unmanaged<SharedBody>.fromOpaque(source).takeUnretainedValue().bytes
        guard position < UInt64(body.count) else { return -1 }
        let start = Int(position)
        let count = Swift.min(max, body.count - start)
        body.withUnsafeBytes { bytes in
            UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + start, byteCount: count)
        }
        return count
    }

    static let release: aggctl_mhd_release = { source in
        guard let source else { return }
        Unmanaged<SharedBody>.fromOpaque(source).release()
    }
}
