import CCurl
import Portable
import TextSafety

/// The one HTTP client aggctl has, over libcurl: used by the WebDAV store, the usage endpoints and webhooks.
///
/// - Connections are reused across the requests of one client: finished libcurl handles wait in a pool
///   with their connections open, and any thread may take one, so parallel downloads each get their own.
/// - TLS certificates are verified (against `caFile` when given); only `http` and `https` are spoken.
/// - Credentials go to libcurl as options, never in a URL; Basic first, Digest once a server asks for it.
///   Redirects are followed only by clients without credentials, so a password never goes elsewhere.
/// - Connection failures, 429 and passing 5xx answers of idempotent requests are retried with jittered
///   backoff (honouring `Retry-After`); a timeout is not, so a server that never answers costs one
///   timeout, not four. A request that is not idempotent (MOVE, POST) is sent once: its caller checks.
/// - A request whose URL, header names or values, or credentials hold a line break or NUL is refused
///   before anything is sent: no token, password or record text can add a header of its own.
public final class HTTPClient: @unchecked Sendable {
    public struct Configuration: Sendable {
        public var credentials: HTTPCredentials?
        /// The whole exchange, connection included.
        public var timeout: Duration
        public var connectTimeout: Duration
        /// Certificates to trust instead of the system's (PEM), for a server with a private CA.
        public var caFile: String?
        public var retry: RetryPolicy
        /// The longest `Retry-After` honoured; a longer one is cut to this.
        public var maximumRetryAfter: TimeInterval
        public var userAgent: String
        /// AWS Signature V4 by libcurl (`CURLOPT_AWS_SIGV4`, "aws:amz:REGION:s3"), with `credentials` as the
        /// access key and secret; nil for Basic and Digest. libcurl signs the URL as given and every header
        /// the request carries, so callers build canonical URLs and set `x-amz-date` and
        /// `x-amz-content-sha256` themselves.
        public var awsSignature: String?

        public init(
            credentials: HTTPCredentials? = nil, timeout: Duration = .seconds(30),
            connectTimeout: Duration = .seconds(10), caFile: String? = nil, retry: RetryPolicy = .standard,
            maximumRetryAfter: TimeInterval = 10, userAgent: String = "aggctl", awsSignature: String? = nil
        ) {
            self.credentials = credentials
            self.timeout = timeout
            self.connectTimeout = connectTimeout
            self.caFile = caFile
            self.retry = retry
            self.maximumRetryAfter = maximumRetryAfter
            self.userAgent = userAgent
            self.awsSignature = awsSignature
        }
    }

    public let configuration: Configuration
    private let lock = Lock()
    private var idleHandles: [UnsafeMutableRawPointer] = []
    /// Set once a server challenged for Digest: every later request answers it without another probe.
    private var usesDigest = false

    /// Why libcurl cannot be used on this machine (one line), or nil when it can: it is loaded on first
    /// use (`CCurl`), with its global set-up, so that commands without HTTP never pay for it.
    public static var libraryProblem: String? {
        aggctl_curl_load_error().map { String(cString: $0) }
    }

    public init(_ configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    deinit {
        // Handles exist only once the library was loaded.
        for handle in idleHandles { aggctl_curl_easy_cleanup(handle) }
    }

    /// Sends `request`, retrying what is worth retrying. Any status is a response: callers judge it.
    ///
    /// - Throws: `HTTPError` when no response came (refused, timed out, TLS, too large).
    public func send(_ request: HTTPRequest) throws -> HTTPResponse {
        try refuseInjection(request)
        if let problem = Self.libraryProblem {
            throw HTTPError(.other, request: request.summary, reason: problem)
        }
        let retry = request.isIdempotent ? configuration.retry : .never
        var attempt = 1
        while true {
            let wait: TimeInterval
            do {
                let response = try perform(request)
                if response.status == 401, challengesForDigest(response) {
                    continue
                } else if response.isTransient, attempt < retry.attempts {
                    wait =
                        response.retryAfter(now: Date()).map { min($0, configuration.maximumRetryAfter) }
                        ?? retry.delay(after: attempt)
                } else {
                    return response
                }
            } catch let error as HTTPError where error.kind == .connection && attempt < retry.attempts {
                wait = retry.delay(after: attempt)
            }
            retry.sleep(wait)
            attempt += 1
        }
    }

    /// Throws `invalidRequest` when any text that goes on the wire could end a line early. The message
    /// names the header, never its value.
    private func refuseInjection(_ request: HTTPRequest) throws {
        func refuse(_ what: String) -> HTTPError {
            HTTPError(
                .invalidRequest, request: SafeText.line(request.summary),
                reason: "refused before sending: \(what) holds a line break, NUL or control character")
        }
        guard !SafeText.hasControlCharacters(request.url) else { throw refuse("the URL") }
        for header in request.headers {
            guard SafeText.isHeaderSafe(header.name), !header.name.contains(":") else {
                throw refuse("a header name")
            }
            guard SafeText.isHeaderSafe(header.value) else { throw refuse("the value of header '\(header.name)'") }
        }
        if let credentials = configuration.credentials {
            guard SafeText.isHeaderSafe(credentials.user), SafeText.isHeaderSafe(credentials.password) else {
                throw refuse("the user name or password")
            }
        }
    }

    /// Whether `response` asks for Digest where Basic was sent (then switches to Digest, once).
    private func challengesForDigest(_ response: HTTPResponse) -> Bool {
        guard configuration.credentials != nil, configuration.awsSignature == nil,
            let challenge = response.headers["www-authenticate"]?.lowercased(),
            challenge.hasPrefix("digest") || challenge.contains(", digest")
        else { return false }
        lock.lock()
        defer { lock.unlock() }
        if usesDigest { return false }
        usesDigest = true
        return true
    }

    private func checkOut(for request: HTTPRequest) throws -> UnsafeMutableRawPointer {
        lock.lock()
        let pooled = idleHandles.popLast()
        lock.unlock()
        if let pooled { return pooled }
        guard let handle = aggctl_curl_easy_init() else {
            throw HTTPError(.other, request: request.summary, reason: "libcurl could not start")
        }
        return handle
    }

    /// Returns a handle to the pool: its options are cleared, its open connections kept.
    private func checkIn(_ handle: UnsafeMutableRawPointer) {
        aggctl_curl_easy_reset(handle)
        lock.lock()
        idleHandles.append(handle)
        lock.unlock()
    }

    /// One exchange, no retries.
    private func perform(_ request: HTTPRequest) throws -> HTTPResponse {
        let handle = try checkOut(for: request)
        defer { checkIn(handle) }
        let exchange = Exchange(maximumBodySize: request.maximumBodySize)
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { aggctl_curl_slist_free_all(headerList) }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        lock.lock()
        let digest = usesDigest
        lock.unlock()

        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { errorPointer in
            let context = Unmanaged.passUnretained(exchange).toOpaque()
            var setup = [
                // Credentials never travel in the URL: a URL with userinfo loses it here.
                aggctl_curl_set_string(handle, CURLOPT_URL, HTTPRequest.displayURL(request.url)),
                aggctl_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"),
                aggctl_curl_set_long(handle, CURLOPT_NOSIGNAL, 1),
                aggctl_curl_set_long(handle, CURLOPT_TIMEOUT_MS, configuration.timeout.milliseconds),
                aggctl_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.milliseconds),
                aggctl_curl_set_string(handle, CURLOPT_USERAGENT, configuration.userAgent),
                // Every encoding this libcurl decodes: an object stored with Content-Encoding: gzip is read
                // as the record it holds, not taken for invalid JSON.
                aggctl_curl_set_string(handle, CURLOPT_ACCEPT_ENCODING, ""),
                aggctl_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, errorPointer.baseAddress),
                aggctl_curl_set_callback(handle, CURLOPT_WRITEFUNCTION, Exchange.receiveBody),
                aggctl_curl_set_pointer(handle, CURLOPT_WRITEDATA, context),
                aggctl_curl_set_callback(handle, CURLOPT_HEADERFUNCTION, Exchange.receiveHeader),
                aggctl_curl_set_pointer(handle, CURLOPT_HEADERDATA, context),
            ]
            if let caFile = configuration.caFile {
                setup.append(aggctl_curl_set_string(handle, CURLOPT_CAINFO, caFile))
            }
            if let limit = request.maximumBodySize {
                setup.append(aggctl_curl_set_offset(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(limit)))
            }
            if !request.isIdempotent {
                // libcurl sends a request again by itself when a reused connection turns out dead before
                // any answer: harmless for a GET, not for a MOVE that did reach the server. On a fresh
                // connection it never does.
                setup.append(aggctl_curl_set_long(handle, CURLOPT_FRESH_CONNECT, 1))
            }
            if request.method == "HEAD" {
                setup.append(aggctl_curl_set_long(handle, CURLOPT_NOBODY, 1))
            } else if request.method != "GET" {
                setup.append(aggctl_curl_set_string(handle, CURLOPT_CUSTOMREQUEST, request.method))
            }
            var headers = request.headers.map { "\($0.name): \($0.value)" }
            if let body = request.body {
                // Sent as the body of whatever the method is; libcurl copies it. No 100-continue wait, and
                // not libcurl's form-encoding content type. A signed request cannot say "Expect:" (libcurl
                // signs the empty header it never sends), so it waits for no 100 Continue instead.
                if configuration.awsSignature == nil {
                    headers.append("Expect:")
                } else {
                    setup.append(aggctl_curl_set_long(handle, CURLOPT_EXPECT_100_TIMEOUT_MS, 0))
                }
                if !request.headers.contains(where: { $0.name.lowercased() == "content-type" }) {
                    headers.append("Content-Type: application/octet-stream")
                }
                setup.append(aggctl_curl_set_offset(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
                setup.append(
                    body.withUnsafeBytes { bytes in
                        let start = bytes.baseAddress ?? UnsafeRawPointer(("" as StaticString).utf8Start)
                        return aggctl_curl_set_pointer(
                            handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: start))
                    })
            }
            for header in headers { headerList = aggctl_curl_slist_append(headerList, header) }
            if headerList != nil { setup.append(aggctl_curl_set_list(handle, CURLOPT_HTTPHEADER, headerList)) }
            if let credentials = configuration.credentials, let signature = configuration.awsSignature {
                setup.append(aggctl_curl_set_string(handle, CURLOPT_AWS_SIGV4, signature))
                setup.append(aggctl_curl_set_string(handle, CURLOPT_USERNAME, credentials.user))
                setup.append(aggctl_curl_set_string(handle, CURLOPT_PASSWORD, credentials.password))
            } else if let credentials = configuration.credentials {
                let scheme = digest ? aggctl_curlauth_digest : aggctl_curlauth_basic
                setup.append(aggctl_curl_set_long(handle, CURLOPT_HTTPAUTH, scheme))
                setup.append(aggctl_curl_set_string(handle, CURLOPT_USERNAME, credentials.user))
                setup.append(aggctl_curl_set_string(handle, CURLOPT_PASSWORD, credentials.password))
            } else if request.followsRedirects {
                setup.append(aggctl_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 1))
                setup.append(aggctl_curl_set_long(handle, CURLOPT_MAXREDIRS, 3))
                setup.append(aggctl_curl_set_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"))
            }
            if let failed = setup.first(where: { $0 != CURLE_OK }) { return failed }
            return aggctl_curl_easy_perform(handle)
        }
        guard code == CURLE_OK else {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw error(for: code, detail: detail, request: request, exchange: exchange)
        }
        var status = 0
        _ = aggctl_curl_response_code(handle, &status)
        return HTTPResponse(status: status, headers: exchange.headers, body: exchange.body)
    }

    private func error(for code: CURLcode, detail: String, request: HTTPRequest, exchange: Exchange) -> HTTPError {
        // curl's texts start with a capital; aggctl's messages are lowercase, but an acronym ("URL using
        // bad/illegal format", "SSL connect error") stays as it is.
        let text = detail.isEmpty ? String(cString: aggctl_curl_easy_strerror(code)) : detail
        let acronym = text.dropFirst().first.map { $0.isUppercase } ?? false
        let reason = acronym ? text : text.prefix(1).lowercased() + text.dropFirst()
        switch code {
        // A body cut short of its announced length is a connection that broke mid-answer: worth another try.
        case CURLE_COULDNT_CONNECT, CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_PARTIAL_FILE:
            return HTTPError(.connection, request: request.summary, reason: "\(reason)")
        case CURLE_OPERATION_TIMEDOUT:
            let seconds = Double(configuration.timeout.milliseconds) / 1000
            return HTTPError(
                .timeout, request: request.summary, reason: "no answer within \(seconds.shortText) s (\(reason))")
        case CURLE_FILESIZE_EXCEEDED:
            return HTTPError(
                .bodyTooLarge(size: exchange.announcedLength), request: request.summary, reason: "response too large")
        case CURLE_WRITE_ERROR where exchange.overflowed:
            return HTTPError(
                .bodyTooLarge(size: exchange.announcedLength), request: request.summary, reason: "response too large")
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE,
            CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_ENGINE_NOTFOUND:
            return HTTPError(.tls, request: request.summary, reason: "TLS failed: \(reason)")
        default:
            return HTTPError(.other, request: request.summary, reason: "\(reason)")
        }
    }
}

extension Duration {
    fileprivate var milliseconds: Int {
        Int(components.seconds * 1000) + Int(components.attoseconds / 1_000_000_000_000_000)
    }
}

extension Double {
    /// "0.3", "1": no trailing ".0" on whole seconds.
    fileprivate var shortText: String {
        self == rounded() ? String(Int(self)) : String(self)
    }
}

/// What libcurl's callbacks collect during one `curl_easy_perform`.
private final class Exchange {
    let maximumBodySize: Int?
    var body = Data()
    var headers: [String: String] = [:]
    var overflowed = false

    init(maximumBodySize: Int?) {
        self.maximumBodySize = maximumBodySize
    }

    var announcedLength: Int64? { headers["content-length"].flatMap { Int64($0) } }

    static let receiveBody: aggctl_curl_data_callback = { bytes, size, count, context in
        let exchange = Unmanaged<Exchange>.fromOpaque(context!).takeUnretainedValue()
        let length = size * count
        if let limit = exchange.maximumBodySize, exchange.body.count + length > limit {
            exchange.overflowed = true
            return 0  // libcurl stops the transfer: a body without a length is cut off at the limit too
        }
        if let bytes {
            exchange.body.append(UnsafeRawPointer(bytes).assumingMemoryBound(to: UInt8.self), count: length)
        }
        return length
    }

    /// Header lines, read as bytes: Foundation's trimming on every line of every answer was a seventh of
    /// the CPU of reading ten thousand records from S3.
    static let receiveHeader: aggctl_curl_data_callback = { bytes, size, count, context in
        let exchange = Unmanaged<Exchange>.fromOpaque(context!).takeUnretainedValue()
        let length = size * count
        guard let bytes else { return length }
        let line = UnsafeRawBufferPointer(start: bytes, count: length).bindMemory(to: UInt8.self)
        // Every response (a redirect, a 100 Continue, a 401 challenge, then the answer) starts anew.
        if line.starts(with: "HTTP/".utf8) {
            exchange.headers = [:]
        } else if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            let name = String(
                decoding: line[..<colon].trimmingASCIIWhitespace().lazy.map(lowercased), as: UTF8.self)
            let value = String(decoding: line[(colon + 1)...].trimmingASCIIWhitespace(), as: UTF8.self)
            // A repeated header is one list (RFC 9110 section 5.3).
            exchange.headers[name] = exchange.headers[name].map { "\($0), \(value)" } ?? value
        }
        return length
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

}
