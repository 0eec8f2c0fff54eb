import HTTP
import Portable

/// POSTs each event as JSON to a URL (`--notify webhook:https://...`): the line `stdout` prints, with
/// `Content-Type: application/json` and the event's id in `Idempotency-Key`, so a receiver can drop a
/// repeat after a retried delivery. Success is any 2xx answer; a redirect is not followed.
///
/// A webhook URL is a secret as a whole (Slack, Discord and ntfy put the token in its path or query):
/// messages and the outbox show only its scheme and host. The URL's userinfo goes as Basic
/// authentication (through the client's credentials); a bearer token (`AGGCTL_WEBHOOK_TOKEN`) as
/// `Authorization: Bearer`.
///
/// The client makes one attempt per delivery: the outbox's `RetryPolicy` retries, like every backend.
public struct WebhookNotifier: Notifier {
    /// `webhook:<scheme>://<host> #<8 hex digits>`: the digits tell two webhooks on one host apart in the
    /// outbox, without showing anything of the path or query (a 32-bit hash of the whole URL).
    public let name: String
    public var isShared: Bool { true }
    private let url: String
    private let client: HTTPClient
    private let bearerToken: String?

    /// - Parameters:
    ///   - client: an `HTTPClient` configured without retries (`RetryPolicy.never`), with the URL's
    ///     userinfo as its credentials (`credentials(in:)`).
    ///   - bearerToken: sent as `Authorization: Bearer`, when given.
    public init(url: String, client: HTTPClient, bearerToken: String? = nil) {
        self.url = url
        self.client = client
        self.bearerToken = bearerToken
        name = Self.outboxName("webhook", url: url)
    }

    /// `<kind>:<scheme>://<host> #<8 hex digits>`: what the outbox and messages call a backend posting to
    /// `url`, its path and query (secrets) left out; the digits (a 32-bit hash of the whole URL) tell two
    /// URLs on one host apart.
    public static func outboxName(_ kind: String, url: String) -> String {
        let visible = HTTPRequest.displayURL(url)
        var hash: UInt32 = 0x811c_9dc5
        for byte in visible.utf8 { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
        let hex = String(hash, radix: 16)
        return "\(kind):\(HTTPRequest.origin(of: url)) #" + String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// POSTs `json` to `url` as `application/json`, redirects not followed, messages showing the origin
    /// only; throws `NotifierError` (naming `service`) unless the answer is a 2xx.
    static func postJSON(_ json: String, to url: String, with client: HTTPClient, service: String) throws {
        let request = HTTPRequest(
            method: "POST", url: url, headers: [("Content-Type", "application/json")], body: Data(json.utf8),
            followsRedirects: false, shownAs: HTTPRequest.origin(of: url))
        try post(request, with: client, service: service)
    }

    /// Sends `request` and throws `NotifierError` (naming `service`) unless the answer is a 2xx.
    static func post(_ request: HTTPRequest, with client: HTTPClient, service: String) throws {
        let response: HTTPResponse
        do {
            response = try client.send(request)
        } catch let error as HTTPError {
            throw NotifierError("\(service) \(error.message)", timedOut: error.kind == .timeout)
        }
        guard response.isSuccess else {
            throw NotifierError("\(service) \(request.summary): the server answered HTTP \(response.status)")
        }
    }

    /// The user name and password in `url`'s userinfo (percent-decoded), for Basic authentication.
    public static func credentials(in url: String) -> HTTPCredentials? {
        guard let components = URLComponents(string: url), let user = components.percentEncodedUser else {
            return nil
        }
        return HTTPCredentials(
            user: PercentEncoding.decode(user) ?? user,
            password: components.percentEncodedPassword.map { PercentEncoding.decode($0) ?? $0 } ?? "")
    }

    public func deliver(_ notification: Notification) throws {
        var headers = [("Content-Type", "application/json"), ("Idempotency-Key", notification.id)]
        if let bearerToken { headers.append(("Authorization", "Bearer " + bearerToken)) }
        let request = HTTPRequest(
            method: "POST", url: url, headers: headers, body: Data(notification.jsonLine.utf8),
            followsRedirects: false, shownAs: HTTPRequest.origin(of: url))
        try Self.post(request, with: client, service: "webhook")
    }
}
