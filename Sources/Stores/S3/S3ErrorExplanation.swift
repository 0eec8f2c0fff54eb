import HTTP
import Portable
import Serialization
import Snapshots
import TextSafety

/// What an S3 error answer means for the person running aggctl, in one line that says what to do.
///
/// Error bodies are the server's text: only their codes steer the explanation, and any of their words that
/// reach the message go through `SafeText.line`. No key, secret or token is ever part of it.
struct S3ErrorExplanation {
    var status: Int
    var document: S3ErrorDocument
    /// `x-amz-bucket-region`, which AWS sends with a redirect or a wrong-region refusal.
    var bucketRegion: String?
    /// This machine's clock minus the server's (`Date`), when the server sent one.
    var clockOffset: TimeInterval?
    var bucket: String
    var settings: S3Settings

    init(response: HTTPResponse, bucket: String, settings: S3Settings, now: Date) {
        status = response.status
        document = S3ErrorDocument(parsing: response.body)
        bucketRegion = response.headers["x-amz-bucket-region"].map { SafeText.line($0, limit: 40) }
        if let serverTime = document.serverTime.flatMap(RFC3339.parse) ?? response.date {
            clockOffset = (document.requestTime.flatMap(RFC3339.parse) ?? now).timeIntervalSince(serverTime)
        }
        self.bucket = bucket
        self.settings = settings
    }

    var code: String { document.code ?? "" }

    /// Refusals of who is asking, as opposed to failures of the request.
    var isPermission: Bool {
        ["AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "InvalidToken", "ExpiredToken"].contains(code)
            || (code.isEmpty && (status == 401 || status == 403))
    }

    /// Which region the server says the bucket is in, when it says.
    var regionOfBucket: String? {
        let named = bucketRegion ?? document.region.map { SafeText.line($0, limit: 40) }
        return named.flatMap { $0.isEmpty || $0 == settings.region ? nil : $0 }
    }

    func text(operation: String, target: String) -> String {
        // "the credentials from X" reads as a sentence only with a source; without one the requests went
        // unsigned.
        let source = settings.credentials?.source
        let credentials = source ?? "nowhere (none were found; the request went unsigned)"
        switch code {
        case "NoSuchBucket":
            return "bucket '\(bucket)' does not exist at \(settings.endpoint); aggctl creates no buckets: "
                + "create it, or fix the name in --store"
        case "AccessDenied":
            return "S3 AccessDenied: "
                + (source.map { "the credentials from \($0)" } ?? "unsigned requests (no credentials were found)")
                + " may not \(operation) '\(target)'; "
                + "the bucket policy needs List on the prefix and Get, Put and Delete on PREFIX/*"
        case "InvalidAccessKeyId":
            return "the server knows no such access key (credentials from \(credentials)); check the key ID"
        case "SignatureDoesNotMatch":
            return "the server refused the request's signature (credentials from \(credentials)): "
                + "check the secret access key, and this machine's clock"
        case "ExpiredToken", "InvalidToken", "TokenRefreshRequired":
            return "the session token from \(credentials) is expired or invalid; get new credentials"
        case "RequestTimeTooSkewed":
            let offset = clockOffset.map { " (this machine is \(DurationWords.offset($0)) the server)" } ?? ""
            return "the server refused the request's time\(offset); S3 allows 15 minutes: set the clock (NTP)"
        case "SlowDown", "ServiceUnavailable", "RequestLimitExceeded":
            return "the server is throttling requests (HTTP \(status) \(code)) even after retries; try again later"
        default:
            break
        }
        // A wrong region: AWS redirects or refuses the signature's scope, and names the bucket's region.
        let wrongRegion = ["PermanentRedirect", "AuthorizationHeaderMalformed", "IllegalLocationConstraintException"]
        if wrongRegion.contains(code) || status == 301 || status == 307, let region = regionOfBucket {
            return
                "bucket '\(bucket)' is in region '\(region)', not '\(settings.region)' (from \(settings.regionSource)); set AWS_REGION=\(region)"
        }
        if status == 403, code.isEmpty {
            return "HTTP 403 with no S3 error code; check the credentials (from \(credentials)) and the endpoint"
        }
        let said = [document.code, document.message].compactMap { $0 }.map { SafeText.line($0, limit: 120) }
        return "the server answered HTTP \(status)" + (said.isEmpty ? "" : " (\(said.joined(separator: ": ")))")
    }
}
