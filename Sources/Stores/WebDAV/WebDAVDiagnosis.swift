import HTTP
import Portable
import Snapshots

/// `doctor` for a WebDAV store: credentials (which source, never the password), the server (OPTIONS:
/// reachable, speaks WebDAV), login (an authenticated PROPFIND: some servers answer OPTIONS to anyone),
/// and the clock against the server's Date header.
struct WebDAVDiagnosis: StoreDiagnosis {
    var location: StoreLocation
    var context: StoreContext

    func checkAccess(report: (StoreFinding) -> Void) throws -> Bool {
        try !checkServer(try WebDAVBackend.url(of: location), report: report)
    }

    /// Credentials, server, login and clock. Returns whether the store cannot be used at all.
    private func checkServer(_ url: URL, report: (StoreFinding) -> Void) throws -> Bool {
        let resolved = WebDAVCredentials.resolveWithSource(
            for: url, environment: context.environment, netrcPath: context.home + "/.netrc")
        if let resolved {
            report(
                StoreFinding(
                    check: "credentials", outcome: .ok,
                    detail: "user '\(resolved.credentials.user)' from \(resolved.source)"))
        } else {
            report(
                StoreFinding(
                    check: "credentials", outcome: .warning, detail: "none found; trying without",
                    fix: "set AGGCTL_WEBDAV_USER and AGGCTL_WEBDAV_PASSWORD, or add the host to ~/.netrc"))
        }
        // No retries: the doctor reports what one attempt meets, at once.
        var configuration = try context.http()
        configuration.credentials = resolved?.credentials
        configuration.retry = .never
        let client = HTTPClient(configuration)
        let request = HTTPRequest(method: "OPTIONS", url: StoreLocation.redacting(url))
        let started = Date()
        let response: HTTPResponse
        do {
            response = try client.send(request)
        } catch let error as HTTPError {
            let fix: String
            switch error.kind {
            case .timeout:
                fix = "the server accepted the connection but did not answer; check it, or raise AGGCTL_HTTP_TIMEOUT"
            case .tls: fix = "check the server's certificate; for a private CA set AGGCTL_CA_FILE to its PEM file"
            default: fix = "check the host and port in the URL, and that the server is running"
            }
            report(StoreFinding(check: "server", outcome: .failed, detail: error.message, fix: fix))
            return true
        }
        let milliseconds = Int(Date().timeIntervalSince(started) * 1000)
        if let refused = loginRefused(response.status, source: resolved?.source) {
            report(refused)
            return true
        }
        switch response.status {
        case 500...:
            report(
                StoreFinding(
                    check: "server", outcome: .failed, detail: "answered OPTIONS with HTTP \(response.status)",
                    fix: "look at the server's error log"))
            return true
        default:
            if let dav = response.headers["dav"] {
                report(
                    StoreFinding(check: "server", outcome: .ok, detail: "answered in \(milliseconds) ms, WebDAV \(dav)")
                )
            } else {
                report(
                    StoreFinding(
                        check: "server", outcome: .warning,
                        detail: "answered in \(milliseconds) ms (HTTP \(response.status)) without a DAV header",
                        fix: "make sure the URL points at a WebDAV collection, not a web page"))
            }
            if let failed = checkLogin(url, client: client, source: resolved?.source, report: report), failed {
                return true
            }
        }
        if let serverDate = response.date {
            report(
                StoreFinding.clock(
                    offset: context.clock().timeIntervalSince(serverDate), against: "the server's Date header")
            )
        }
        return false
    }

    /// The login, judged by what needs it: some servers (rclone) answer OPTIONS to anyone, so only an
    /// authenticated PROPFIND of the collection tells. Returns whether it failed, nil when it could not
    /// tell (the listing check says more).
    private func checkLogin(
        _ url: URL, client: HTTPClient, source: String?, report: (StoreFinding) -> Void
    ) -> Bool? {
        let request = HTTPRequest(
            method: "PROPFIND", url: StoreLocation.redacting(url), headers: [("Depth", "0")],
            body: Data(
                #"<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:prop><D:resourcetype/></D:prop></D:propfind>"#
                    .utf8))
        guard let response = try? client.send(request) else { return nil }
        if let refused = loginRefused(response.status, source: source) {
            report(refused)
            return true
        }
        switch response.status {
        case 207, 404:
            report(
                StoreFinding(
                    check: "login", outcome: .ok,
                    detail: source == nil ? "none needed (a listing was answered without one)" : "accepted"))
            return false
        default:
            return nil
        }
    }

    /// The failed login a 401 or 403 means (credentials from `source`), nil for any other status.
    private func loginRefused(_ status: Int, source: String?) -> StoreFinding? {
        switch status {
        case 401:
            return StoreFinding(
                check: "login", outcome: .failed, detail: "the server refused the user name or password (HTTP 401)",
                fix: "check the password in \(source ?? "AGGCTL_WEBDAV_PASSWORD or ~/.netrc")")
        case 403:
            return StoreFinding(
                check: "login", outcome: .failed, detail: "the server forbids this user the store (HTTP 403)",
                fix: "give the user access to the collection on the server")
        default:
            return nil
        }
    }
}
