import HTTPServer
import Portable
import Serialization
import Snapshots

/// How `serve` answers a request, from the views of the last merge: a pure function of the request, the
/// views and the token, so that every rule is tested without a socket.
struct ServeRoutes: Sendable {
    /// The bearer token every request needs; nil on loopback without `--token-file`.
    var token: [UInt8]?
    /// The `Host` names answered; any other is refused with 421 before anything else is looked at.
    var hosts: AnsweredHosts

    /// The page's policy: the report's, and the one script of this server (`DashboardPage.policy`).
    static let pagePolicy = DashboardPage.policy

    func answer(_ request: HTTPRequest, state: ServedSnapshot) -> HTTPResponse {
        guard hosts.answers(request.header("Host"), port: request.port) else {
            return plain(421, "this server does not answer for that name (its Host); see serve --allow-host\n")
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return plain(405, "only GET and HEAD are answered\n", extra: [("Allow", "GET, HEAD")])
        }
        // Routes are fixed: a query is ignored, anything else is not found.
        let path = request.target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let isPage = path == "/" || path == "/index.html"
        if let token {
            let given = request.header("Authorization").flatMap(Self.bearer) ?? []
            if !Self.sameBytes(given, token) {
                // A browser opening the page cannot send the token yet: it gets the shell, which asks for it,
                // and the script; neither holds anything from the store.
                if isPage, let shell = state.views?.shell { return view(shell, request: request, page: true) }
                if path == "/dashboard.js" { return view(ServedViews.script, request: request, page: false) }
                return plain(401, "a bearer token is needed\n", extra: [("WWW-Authenticate", "Bearer")])
            }
        }
        if path == "/healthz" {
            if let error = state.error { return plain(503, "the store could not be read: \(error)\n") }
            guard let views = state.views else { return plain(503, "not merged yet\n") }
            return plain(200, "ok, merged at \(RFC3339.format(views.mergedAt)); \(state.reads) reads of the store\n")
        }
        let found: ServedViews.View?
        switch path {
        case "/", "/index.html": found = state.views?.page
        case "/dashboard.js": found = ServedViews.script
        case "/api/status": found = state.views?.status
        case "/metrics": found = state.views?.metrics
        default: return plain(404, "not found\n")
        }
        guard let found else { return plain(503, "not merged yet\n", extra: [("Retry-After", "1")]) }
        return view(found, request: request, page: isPage)
    }

    /// `view` with its tag, or 304 when the client holds it.
    private func view(_ view: ServedViews.View, request: HTTPRequest, page: Bool) -> HTTPResponse {
        var headers = Self.common + [("ETag", view.entityTag), ("Cache-Control", "no-cache")]
        if page { headers += [("Content-Security-Policy", Self.pagePolicy), ("X-Frame-Options", "DENY")] }
        if let tags = request.header("If-None-Match"), Self.matches(tags, view.entityTag) {
            return HTTPResponse(status: 304, headers: headers)
        }
        return HTTPResponse(status: 200, headers: headers + [("Content-Type", view.contentType)], body: view.body)
    }

    static let common: [(name: String, value: String)] = [
        ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
    ]

    private func plain(_ status: Int, _ text: String, extra: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(
            status: status,
            headers: Self.common + [("Content-Type", "text/plain; charset=utf-8"), ("Cache-Control", "no-store")]
                + extra,
            body: Array(text.utf8))
    }

    /// The token of `Bearer <token>` (the scheme in any case, RFC 9110), as bytes.
    static func bearer(_ header: String) -> [UInt8]? {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return Array(parts[1].utf8.drop { $0 == 0x20 })
    }

    /// Whether two byte strings are equal, in time that depends on their lengths only, not on where they
    /// first differ.
    static func sameBytes(_ given: [UInt8], _ expected: [UInt8]) -> Bool {
        var difference = UInt8(given.count == expected.count ? 0 : 1)
        for index in 0..<max(given.count, expected.count) {
            let left = index < given.count ? given[index] : 0
            let right = index < expected.count ? expected[index] : 0
            difference |= left ^ right
        }
        return difference == 0
    }

    /// Whether an `If-None-Match` list names `tag` (or is `*`); weak tags compare as their strong forms.
    static func matches(_ list: String, _ tag: String) -> Bool {
        list.split(separator: ",").contains { item in
            var item = item.trimmingBlanks()
            if item.hasPrefix("W/") { item.removeFirst(2) }
            return item == tag || item == "*"
        }
    }
}
