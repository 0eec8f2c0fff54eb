import HTTP
import Portable
import Snapshots

/// S3-compatible object storage: `s3://BUCKET/PREFIX/`, with the endpoint, region and credentials the AWS
/// tools would use (`S3Settings`).
public struct S3Backend: StoreBackend {
    public static let name = "s3"
    public var name: String { Self.name }
    public var schemes: [String] { ["s3"] }
    public var variables: [(names: String, meaning: String)] {
        [
            (
                "AWS_ENDPOINT_URL, AWS_REGION, AWS_PROFILE",
                "an s3:// store's endpoint (default AWS), region and profile in ~/.aws/credentials and ~/.aws/config"
            ),
            (
                "AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN",
                "S3 credentials, before the shared files; never shown, never passed to hooks"
            ),
        ]
    }
    public var secretVariables: [String] { ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"] }

    public init() {}

    public func parse(_ text: String) throws(StoreLocation.ParseError) -> StoreLocation {
        let location = try S3Location.parse(text)
        return StoreLocation(backend: name, target: .s3(location), displayName: location.displayName)
    }

    public func open(_ location: StoreLocation, context: StoreContext) throws -> any RecordStore {
        try store(location, context: context, http: try context.http())
    }

    public func diagnosis(of location: StoreLocation, context: StoreContext) -> any StoreDiagnosis {
        S3Diagnosis(location: location, context: context)
    }

    func store(_ location: StoreLocation, context: StoreContext, http: HTTPClient.Configuration) throws -> S3Store {
        guard case .s3(let parsed) = location.target else {
            throw StoreError.failed(
                operation: "open", target: location.displayName, reason: "not an s3:// store")
        }
        let settings = try S3Settings.resolve(
            bucket: parsed.bucket, environment: context.environment, home: context.home)
        return S3Store(location: parsed, settings: settings, http: http, clock: context.clock)
    }
}

/// `doctor` for an S3 store: the endpoint and region, where the credentials came from (never what they
/// are), then one listing request that tells whether the endpoint answers, the signature is accepted, the
/// clock is close enough and the bucket exists.
struct S3Diagnosis: StoreDiagnosis {
    var location: StoreLocation
    var context: StoreContext

    func checkAccess(report: (StoreFinding) -> Void) throws -> Bool {
        var http = try context.http()
        http.retry = .never  // what one attempt meets, at once
        let store: S3Store
        do {
            store = try S3Backend().store(location, context: context, http: http)
        } catch {
            report(StoreFinding(check: "settings", outcome: .failed, detail: "\(error)"))
            return false
        }
        let settings = store.settings
        report(
            StoreFinding(
                check: "endpoint", outcome: .ok,
                detail: "\(settings.endpoint) (from \(settings.endpointSource)), region \(settings.region) "
                    + "(from \(settings.regionSource)), \(settings.pathStyle ? "path-style" : "virtual-hosted") requests"
            ))
        if let credentials = settings.credentials {
            let session = credentials.sessionToken == nil ? "" : ", with a session token"
            report(StoreFinding(check: "credentials", outcome: .ok, detail: "from \(credentials.source)\(session)"))
        } else {
            report(
                StoreFinding(
                    check: "credentials", outcome: .warning, detail: "none found; requests go unsigned",
                    fix:
                        "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or add profile '\(settings.profile)' to ~/.aws/credentials"
                ))
        }

        let started = Date()
        let response: HTTPResponse
        do {
            response = try store.send("list", store.displayName, store.listRequest(after: nil, maximumKeys: 1))
        } catch {
            report(
                StoreFinding(
                    check: "endpoint", outcome: .failed, detail: "\(error)",
                    fix:
                        "check AWS_ENDPOINT_URL (host and port) and that the server is running; for a private CA set AGGCTL_CA_FILE"
                ))
            return false
        }
        let milliseconds = Int(Date().timeIntervalSince(started) * 1000)
        let explanation = S3ErrorExplanation(
            response: response, bucket: store.location.bucket, settings: settings, now: context.clock())
        if let offset = explanation.clockOffset {
            var finding = StoreFinding.clock(offset: offset, against: "the server's clock")
            if explanation.code == "RequestTimeTooSkewed" {
                finding.outcome = .failed
                finding.fix =
                    "set this machine's clock (NTP: systemd-timesyncd, chrony); S3 refuses requests more than 15 minutes off"
            }
            report(finding)
        }
        if response.status == 200 {
            report(
                StoreFinding(
                    check: "signature", outcome: .ok,
                    detail: settings.credentials == nil ? "none sent; the server allowed it" : "accepted"))
            report(
                StoreFinding(
                    check: "bucket", outcome: .ok,
                    detail: "'\(store.location.bucket)' answered a listing in \(milliseconds) ms"))
            return true
        }
        let detail = explanation.text(operation: "list", target: store.displayName)
        switch explanation.code {
        case "RequestTimeTooSkewed":
            return false  // said by the clock line
        case "SignatureDoesNotMatch", "InvalidAccessKeyId", "ExpiredToken", "InvalidToken":
            report(StoreFinding(check: "signature", outcome: .failed, detail: detail))
        case "NoSuchBucket":
            report(StoreFinding(check: "signature", outcome: .ok, detail: "accepted"))
            report(
                StoreFinding(
                    check: "bucket", outcome: .failed, detail: detail,
                    fix: "create the bucket (aws s3 mb s3://\(store.location.bucket)) or fix --store"))
        case "AccessDenied":
            report(StoreFinding(check: "access", outcome: .failed, detail: detail))
        default:
            report(StoreFinding(check: "bucket", outcome: .failed, detail: detail))
        }
        return false
    }
}
