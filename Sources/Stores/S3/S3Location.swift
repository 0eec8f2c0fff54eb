import Portable
import Snapshots

/// `s3://BUCKET/PREFIX/`: a bucket, and the key prefix every record of the store sits directly under.
///
/// Parsed, never concatenated: a store's keys are its prefix plus one record name, so nothing is ever
/// written outside `PREFIX/`. The bucket must be a name S3 accepts (3 to 63 letters, digits, `.`, `-`,
/// `_`); the prefix may not hold empty, `.` or `..` segments; credentials never go in the URL.
public struct S3Location: Equatable, Sendable {
    public var bucket: String
    /// Empty (the bucket's top), or segments each followed by `/`.
    public var prefix: String

    var displayName: String { "s3://\(bucket)/\(prefix)" }

    /// The location as a URL that `parse` reads back to this same location: each prefix segment
    /// percent-encoded again. The display name is decoded text, and parsed again it decoded a second
    /// time (`s3://b/pct%2541/` wrote under `pctA/`).
    var address: String {
        let segments = prefix.split(separator: "/").map { PercentEncoding.unreserved.encode($0) + "/" }
        return "s3://\(bucket)/" + segments.joined()
    }

    static func parse(_ text: String) throws(StoreLocation.ParseError) -> S3Location {
        let url = try StoreLocation.checkedURL(text)
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw StoreLocation.ParseError(reason: "is not a valid URL")
        }
        guard components.user == nil, components.password == nil else {
            throw StoreLocation.ParseError(
                reason: "holds credentials; an s3:// URL names a bucket and prefix only "
                    + "(credentials come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or ~/.aws/credentials)")
        }
        guard components.port == nil else {
            throw StoreLocation.ParseError(
                reason: "has a port; an s3:// URL names a bucket (the endpoint comes from AWS_ENDPOINT_URL)")
        }
        let bucket = components.percentEncodedHost ?? ""
        guard isBucketName(bucket) else {
            throw StoreLocation.ParseError(
                reason: bucket.isEmpty
                    ? "has no bucket (expected s3://BUCKET/PREFIX/)"
                    : "has the bucket '\(bucket)', which is not a bucket name (3 to 63 letters, digits, '.', '-' or '_')"
            )
        }
        var segments = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false).map {
            PercentEncoding.decode($0) ?? String($0)
        }
        if segments.first == "" { segments.removeFirst() }
        if segments.last == "" { segments.removeLast() }
        guard !segments.contains("") else {
            throw StoreLocation.ParseError(reason: "has an empty segment ('//') in its prefix")
        }
        let prefix = segments.map { $0 + "/" }.joined()
        guard prefix.utf8.count <= 512 else { throw StoreLocation.ParseError(reason: "has a prefix over 512 bytes") }
        return S3Location(bucket: bucket, prefix: prefix)
    }

    /// DNS-style bucket names, plus `_` and capitals that older buckets and other servers allow.
    static func isBucketName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (3...63).contains(bytes.count) else { return false }
        let alphanumeric = { (byte: UInt8) in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard alphanumeric(bytes.first!), alphanumeric(bytes.last!) else { return false }
        return bytes.allSatisfy {
            alphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
        }
    }
}
