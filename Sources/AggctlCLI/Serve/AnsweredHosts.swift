import HTTPServer

/// The names `serve` answers to in a request's `Host` (docs/serve.md, "Who may ask"). A web page whose
/// owner points its own name at 127.0.0.1 (DNS rebinding) reaches the server with the browser's blessing
/// as the same origin, but its requests carry that name: refused, they read nothing.
struct AnsweredHosts: Sendable, Equatable {
    /// Where serve listens; a request's `Host` must give the port it came in on.
    var listen: ListenAddress
    /// `--allow-host` names, lowercased, answered on any port (a TLS proxy in front forwards its own).
    var names: [String]

    init(listen: ListenAddress, names: [String] = []) {
        self.listen = listen
        self.names = names.map { $0.lowercased() }
    }

    /// Whether a request that came in on `port` with `Host: header` is answered: `localhost`, a loopback
    /// address or the listen address (any IP address when listening on 0.0.0.0 or [::], since rebinding
    /// needs a name) with the port, or an `--allow-host` name. No `Host` at all is refused too.
    func answers(_ header: String?, port: Int) -> Bool {
        guard let header, let (host, given) = Self.split(header) else { return false }
        if names.contains(host) { return true }
        guard (given ?? 80) == port else { return false }
        if host == "localhost" { return true }
        guard case .success(let address) = ListenAddress.parse(host + ":0") else { return false }
        let wildcard = listen.bytes.allSatisfy { $0 == 0 }
        return address.isLoopback || address.bytes == listen.bytes || wildcard
    }

    /// `host[:port]` or `[v6][:port]`, the host lowercased (brackets kept); nil when it is neither.
    static func split(_ header: String) -> (host: String, port: Int?)? {
        let text = Substring(header.lowercased().trimmingBlanks())
        var host = text
        var port: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[...close]
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                port = rest.dropFirst()
            }
        } else if let colon = text.firstIndex(of: ":") {
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        guard !host.isEmpty else { return nil }
        guard let port else { return (String(host), nil) }
        guard (1...5).contains(port.utf8.count), port.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let number = Int(port), number <= 65_535
        else { return nil }
        return (String(host), number)
    }

    /// Why `name` cannot be an `--allow-host` name, or nil: a DNS name (letters, digits, '-' and '.'), or
    /// an IP address, without a port.
    static func problem(withName name: String) -> String? {
        let bytes = Array(name.utf8)
        let isName =
            !bytes.isEmpty && bytes.count <= 253
            && bytes.allSatisfy { byte in
                (0x61...0x7A).contains(byte | 0x20) || (0x30...0x39).contains(byte) || byte == 0x2D || byte == 0x2E
            }
        if isName { return nil }
        if name.hasPrefix("["), case .success = ListenAddress.parse(name + ":0") { return nil }
        return "'\(name)' is not a host name: a name such as dash.example.org, or an IP address, without a port"
    }
}
