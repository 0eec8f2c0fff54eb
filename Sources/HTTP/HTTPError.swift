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
        case other
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
