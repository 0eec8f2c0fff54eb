import Portable

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where `serve` listens: `HOST:PORT`, parsed once. HOST is an IPv4 address, an IPv6 address in
/// brackets (`[::1]:8787`) or `localhost`; names are not looked up (a name could resolve anywhere, and
/// whether the address is loopback decides whether a token is needed). PORT is 0 to 65535 (0: any free
/// port, printed when the server starts).
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public enum Family: Sendable, Equatable { case ipv4, ipv6 }
    public let family: Family
    /// The address's bytes in network order (4 or 16).
    public let bytes: [UInt8]
    public let port: UInt16

    public static let `default` = ListenAddress(family: .ipv4, bytes: [127, 0, 0, 1], port: 8787)

    /// `address` on another port (the one the system chose for port 0).
    public init(copying address: ListenAddress, port: UInt16) {
        self.init(family: address.family, bytes: address.bytes, port: port)
    }

    init(family: Family, bytes: [UInt8], port: UInt16) {
        self.family = family
        self.bytes = bytes
        self.port = port
    }

    /// Why `text` is not a listen address (one line), or the address.
    public static func parse(_ text: String) -> Result<ListenAddress, ListenAddressError> {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                return .failure(ListenAddressError("an IPv6 address is written in brackets: [::1]:8787"))
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else {
                return .failure(ListenAddressError("expected HOST:PORT, such as 127.0.0.1:8787 or [::1]:8787"))
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !portText.isEmpty, portText.utf8.count <= 5, portText.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let port = Int(portText), port <= 65_535
        else {
            return .failure(ListenAddressError("the port is a number from 0 to 65535"))
        }
        if host == "localhost" {
            return .success(ListenAddress(family: .ipv4, bytes: [127, 0, 0, 1], port: UInt16(port)))
        }
        var v4 = in_addr()
        if inet_pton(AF_INET, String(host), &v4) == 1 {
            let bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return .success(ListenAddress(family: .ipv4, bytes: bytes, port: UInt16(port)))
        }
        var v6 = in6_addr()
        if text.hasPrefix("["), inet_pton(AF_INET6, String(host), &v6) == 1 {
            let bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return .success(ListenAddress(family: .ipv6, bytes: bytes, port: UInt16(port)))
        }
        return .failure(ListenAddressError("the host is an IP address or localhost (names are not looked up)"))
    }

    /// 127.0.0.0/8 or ::1: reachable from this machine only.
    public var isLoopback: Bool {
        switch family {
        case .ipv4: bytes.first == 127
        case .ipv6: bytes == Array(repeating: 0, count: 15) + [1]
        }
    }

    public var description: String {
        var buffer = [CChar](repeating: 0, count: 64)
        var copy = bytes
        _ = inet_ntop(family == .ipv4 ? AF_INET : AF_INET6, &copy, &buffer, socklen_t(buffer.count))
        let host = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return family == .ipv4 ? "\(host):\(port)" : "[\(host)]:\(port)"
    }

    /// The address as a socket address, for the time of `body`.
    func withSocketAddress<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        switch family {
        case .ipv4:
            var address = sockaddr_in()
            #if canImport(Darwin)
                address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
            #endif
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &address.sin_addr) { $0.copyBytes(from: bytes) }
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        case .ipv6:
            var address = sockaddr_in6()
            #if canImport(Darwin)
                address.sin6_len = UInt8(MemoryLayout<sockaddr_in6>.size)
            #endif
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &address.sin6_addr) { $0.copyBytes(from: bytes) }
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
    }
}

public struct ListenAddressError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
