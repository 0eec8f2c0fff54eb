/// Why no usable answer came: one line naming the request (never credentials) and what went wrong.
package struct HTTPError: Error, Equatable, Sendable, CustomStringConvertible {
    package enum Kind: Equatable, Sendable {
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

    package var kind: Kind
    /// The method and URL, credentials removed (`HTTPRequest.summary`).
    package var request: String
    /// What went wrong, without the request.
    package var reason: String

    package init(_ kind: Kind, request: String, reason: String) {
        self.kind = kind
        self.request = request
        self.reason = reason
    }

    package var message: String { "\(request): \(reason)" }
    package var description: String { message }
}
