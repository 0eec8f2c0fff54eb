import Portable

/// One HTTP exchange to make: a method, a URL, headers and an optional body.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The URL without credentials: those belong to the client, so no request can carry them into a message.
    public var url: String
    /// Sent in this order; names as given.
    public var headers: [(name: String, value: String)]
    public var body: Data?
    /// A response body over this many bytes is refused while it downloads (`HTTPError.Kind.bodyTooLarge`).
    public var maximumBodySize: Int?
    /// Whether a redirect is followed (by a client without credentials); a webhook's never is.
    public var followsRedirects: Bool
    /// What messages show instead of the URL, for a URL that is a secret as a whole (a webhook's token
    /// sits in its path or query): `HTTPRequest.origin(of:)`.
    public var shownAs: String?

    public init(
        method: String = "GET", url: String, headers: [(name: String, value: String)] = [], body: Data? = nil,
        maximumBodySize: Int? = nil, followsRedirects: Bool = true, shownAs: String? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.maximumBodySize = maximumBodySize
        self.followsRedirects = followsRedirects
        self.shownAs = shownAs
    }

    /// Whether sending the request twice has the effect of sending it once (RFC 9110 section 9.2.2, plus
    /// WebDAV's PROPFIND, which only reads): only such requests are retried blindly. A repeated MOVE or
    /// POST may act twice (rclone answers a repeated MOVE by deleting what the first one moved), so its
    /// caller must check what happened before sending it again. MKCOL counts: a repeat answers 405,
    /// which every caller reads as "made already".
    public var isIdempotent: Bool {
        ["GET", "HEAD", "OPTIONS", "PUT", "DELETE", "PROPFIND", "MKCOL"].contains(method.uppercased())
    }

    /// What a message may show: the method and the URL with any userinfo (`user:password@`) removed, or
    /// `shownAs`.
    public var summary: String { "\(method) \(shownAs ?? HTTPRequest.displayURL(url))" }

    /// `scheme://host[:port]` of `url`, nothing of its userinfo, path, query or fragment: how a URL that is
    /// a secret (a webhook) is shown.
    public static func origin(of url: String) -> String {
        guard let scheme = url.firstRange(of: "://") else { return "(a URL)" }
        let rest = url[scheme.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        return String(url[..<scheme.upperBound]).lowercased() + authority
    }

    /// `url` as it may be shown: any userinfo removed.
    public static func displayURL(_ url: String) -> String {
        guard let scheme = url.firstRange(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return url }
        return String(url[..<scheme.upperBound]) + String(rest[rest.index(after: at)...])
    }
}

/// What the server answered.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    /// Header names in lower case (servers differ: `ETag`, `Etag`); a repeated header's values joined by ", ".
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The server's clock, from its `Date` header.
    public var date: Date? { headers["date"].flatMap(HTTPDate.parse) }

    public var isSuccess: Bool { (200..<300).contains(status) }

    /// "Too many requests" or a server error that may pass (not 501 "not implemented" or 507 "out of
    /// space"): worth asking again a little later.
    public var isTransient: Bool { [429, 500, 502, 503, 504].contains(status) }

    /// `Retry-After` in seconds (either form RFC 9110 allows), relative to `now`.
    public func retryAfter(now: Date) -> TimeInterval? {
        guard let value = headers["retry-after"]?.trimmingBlanks() else { return nil }
        if let seconds = TimeInterval(value) { return max(0, seconds) }
        return HTTPDate.parse(value).map { max(0, $0.timeIntervalSince(now)) }
    }
}

/// User name and password for a server. Printing one never shows the password.
public struct HTTPCredentials: Sendable, Equatable, CustomStringConvertible {
    public var user: String
    public var password: String

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    public var description: String { "credentials for '\(user)'" }
}
