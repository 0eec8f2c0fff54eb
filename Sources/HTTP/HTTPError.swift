/// Why no usable answer came: one line naming the request (never credentials) and what went wrong.
public struct HTTPError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// Nothing listened, or the connection broke before an answer: worth retrying.
        case connection
        /// The server took longer than the time limit.
        case timeout
        /// The certificate could not be verified, or TLS failed.
        case tls
        /// The response body was over `HTTPRequest.maximumBodySize`; `size` is what the server announced.
        case bodyTooLarge(size: Int64?)
        /// Refused before anything was sent: a header, a credential or the URL would have carried a line
        /// break or NUL (a header injection).
        case invalidRequest
        case other
    }

    public var kind: Kind
    /// The method and URL, credentials removed (`HTTPRequest.summary`).
    public var request: String
    /// What went wrong, without the request.
    public var reason: String

    public init(_ kind: Kind, request: String, reason: String) {
        self.kind = kind
        self.request = request
        self.reason = reason
    }

    public var message: String { "\(request): \(reason)" }
    public var description: String { message }
}
