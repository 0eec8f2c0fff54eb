import Portable
import Snapshots

/// A `ListObjectsV2` page (`ListBucketResult`): the objects directly under the prefix, and where the next
/// page starts. Elements are matched by local name (servers differ in namespaces and order).
struct S3ListingPage {
    struct Object: Equatable {
        var key: String
        var etag: String?
        var size: Int64?
        var lastModified: String?
    }

    var objects: [Object] = []
    var isTruncated = false
    var nextContinuationToken: String?

    /// - Throws: `S3DocumentError` when `data` is not a `ListBucketResult` (its line, and whether it was
    ///   cut short).
    init(parsing data: Data) throws(S3DocumentError) {
        var handler = Handler()
        try S3DocumentError.read(data, into: &handler)
        guard handler.sawRoot else { throw S3DocumentError(line: 1, detail: "no ListBucketResult element") }
        objects = handler.objects
        isTruncated = handler.isTruncated
        nextContinuationToken = handler.nextToken
    }

    private struct Handler: MinimalXMLReader.Handler {
        var objects: [Object] = []
        var isTruncated = false
        var nextToken: String?
        var sawRoot = false
        private var path: [String] = []
        private var text = ""
        private var current: Object?

        var wantsText: Bool { path.count >= 2 }

        mutating func start(namespace: String?, name: String) {
            path.append(name)
            text = ""
            if path.count == 1 { sawRoot = name == "ListBucketResult" }
            if path.count == 2, name == "Contents" { current = Object(key: "") }
        }

        mutating func text(_ more: String) { text += more }

        mutating func end(namespace: String?, name: String) {
            defer { path.removeLast() }
            switch (path.count, name) {
            case (2, "IsTruncated"): isTruncated = text.trimmingBlanks().lowercased() == "true"
            case (2, "NextContinuationToken"): nextToken = text
            case (3, "Key") where path[1] == "Contents": current?.key = text
            case (3, "ETag") where path[1] == "Contents": current?.etag = text
            case (3, "Size") where path[1] == "Contents":
                current?.size = Int64(text) ?? Int64(text.trimmingWhitespace())
            case (3, "LastModified") where path[1] == "Contents": current?.lastModified = text
            case (2, "Contents"):
                if let current, !current.key.isEmpty { objects.append(current) }
                current = nil
            default: break
            }
            text = ""
        }
    }
}

/// An S3 error answer (`<Error><Code>…</Code><Message>…</Message>…</Error>`), with the fields aggctl
/// explains: the region a bucket is in, the times a skewed request was judged by.
struct S3ErrorDocument: Equatable {
    var code: String?
    var message: String?
    var region: String?
    var requestTime: String?
    var serverTime: String?

    /// The fields of `data`; empty for a body that is not an S3 error (a proxy's page, nothing at all).
    init(parsing data: Data) {
        var handler = Handler()
        guard (try? S3DocumentError.read(data, into: &handler)) != nil else { return }
        code = handler.fields["Code"]
        message = handler.fields["Message"]
        region = handler.fields["Region"]
        requestTime = handler.fields["RequestTime"]
        serverTime = handler.fields["ServerTime"]
    }

    private struct Handler: MinimalXMLReader.Handler {
        var fields: [String: String] = [:]
        private var depth = 0
        private var isError = false
        private var text = ""

        var wantsText: Bool { isError && depth == 2 }

        mutating func start(namespace: String?, name: String) {
            depth += 1
            if depth == 1 { isError = name == "Error" }
            text = ""
        }

        mutating func text(_ more: String) { text += more }

        mutating func end(namespace: String?, name: String) {
            if isError, depth == 2, fields[name] == nil { fields[name] = text }
            depth -= 1
        }
    }
}

/// Why an S3 answer could not be read as XML.
struct S3DocumentError: Error {
    var line: Int
    var detail: String
    var isCutShort = false

    /// Reads UTF-8 XML without NUL into `handler`; anything else is refused before reading.
    static func read<H: MinimalXMLReader.Handler>(_ data: Data, into handler: inout H) throws(S3DocumentError) {
        guard MinimalXMLReader.isText(data) else { throw S3DocumentError(line: 1, detail: "not UTF-8 text") }
        do {
            try MinimalXMLReader.read(Array(data), into: &handler)
        } catch {
            throw S3DocumentError(line: error.line, detail: error.reason, isCutShort: error.isCutShort)
        }
    }
}
