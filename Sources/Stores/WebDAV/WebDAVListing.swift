import Portable
import Snapshots

/// The members of a collection, from a PROPFIND `Depth: 1` answer (RFC 4918 `multistatus`).
///
/// Elements are matched by namespace `DAV:` and local name: servers pick their own prefixes (`D:`, `d:`,
/// `lp1:`). Properties count only from a `propstat` whose status is 200.
struct WebDAVListing {
    struct Member: Equatable {
        /// The last path segment, percent-decoded.
        var name: String
        /// The decoded path, without a trailing slash.
        var path: String
        /// The normalised `scheme://host:port` when the href was a full URL, nil for a path.
        var hrefAuthority: String?
        var isCollection = false
        var etag: String?
        var lastModified: String?
        var contentLength: Int64?

        /// The decoded path of the collection the member is in (`/` for one at the top).
        var parentPath: String {
            guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
            let parent = String(path[..<slash])
            return parent.isEmpty ? "/" : parent
        }
    }

    var members: [Member] = []

    /// What a listing asks for, and nothing more (Apache would otherwise send lock discovery per file).
    static let request = Data(
        """
        <?xml version="1.0" encoding="utf-8"?>
        <D:propfind xmlns:D="DAV:"><D:prop><D:resourcetype/><D:getetag/><D:getlastmodified/>\
        <D:getcontentlength/></D:prop></D:propfind>
        """.utf8)

    /// - Throws: `ListingError` with the reader's position when `data` is not a multistatus document,
    ///   `isCutShort` when it stopped before its end.
    init(parsing data: Data) throws {
        // Listings are UTF-8, and XML allows no NUL: anything else is refused before reading.
        guard MinimalXMLReader.isText(data) else { throw ListingError(line: 1, detail: "not UTF-8 text") }
        var handler = Handler()
        do {
            try MinimalXMLReader.read(Array(data), into: &handler)
        } catch {
            throw ListingError(line: error.line, detail: error.reason, isCutShort: error.isCutShort)
        }
        guard handler.sawMultistatus else { throw ListingError(line: 1, detail: "no DAV: multistatus element") }
        members = handler.members
    }

    struct ListingError: Error {
        var line: Int
        var detail: String?
        /// The document stopped before its end: worth asking again.
        var isCutShort = false
    }

    /// Turns an `href` (an absolute path or a full URL, percent-encoded) into a decoded path.
    ///
    /// Works on UTF-8 bytes: Foundation's string searching and percent decoding cost more per record than
    /// the XML parsing of a big listing.
    static func path(ofHref href: String) -> String {
        var bytes = Array(trimmed(href).utf8)[...]
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[colon...].starts(with: "://".utf8) {
            let authority = bytes[(colon + 3)...]
            bytes = authority.firstIndex(of: UInt8(ascii: "/")).map { authority[$0...] } ?? [UInt8(ascii: "/")]
        }
        if bytes.count > 1, bytes.last == UInt8(ascii: "/") { bytes = bytes.dropLast() }
        guard bytes.contains(UInt8(ascii: "%")) else { return String(decoding: bytes, as: UTF8.self) }
        var decoded = PercentEncoding.decodeLeniently(bytes)
        if decoded.count > 1, decoded.last == UInt8(ascii: "/") { decoded.removeLast() }
        return String(decoding: decoded, as: UTF8.self)
    }

    /// The normalised `scheme://host:port` of an href that is a full URL (`authority(scheme:hostAndPort:)`),
    /// nil for an absolute path.
    static func hrefAuthority(_ href: String) -> String? {
        // Most servers send paths: ruled out on the bytes (a search over Characters for "://" cost a
        // twentieth of reading an unchanged store's listing).
        guard ByteSearch.contains(href, "://") else { return nil }
        let text = trimmed(href)
        guard let scheme = text.firstRange(of: "://") else { return nil }
        let rest = text[scheme.upperBound...]
        var authority = rest[..<(rest.firstIndex(of: "/") ?? rest.endIndex)]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        return Self.authority(scheme: String(text[..<scheme.lowerBound]), hostAndPort: String(authority))
    }

    /// `scheme://host:port`, lower-cased, with the scheme's default port written out, so that
    /// `http://Host/` and `http://host:80/` compare equal.
    static func authority(scheme: String, hostAndPort: String) -> String {
        let lower = hostAndPort.lowercased()
        let scheme = scheme.lowercased()
        // "[::1]:8080" and "host:8080" have a port; "[::1]" and "host" do not.
        let hasPort = lower.last.map(\.isNumber) == true && lower.contains(":")
        let port = hasPort ? "" : (scheme == "https" ? ":443" : ":80")
        return scheme + "://" + lower + port
    }

    /// `text` without leading and trailing ASCII white space (all XML has).
    static func trimmed(_ text: String) -> Substring {
        Substring(text.utf8.trimmingASCIIWhitespace())
    }

    /// Collects the members from the reader's elements: only `DAV:` elements count, only the texts that
    /// are used are kept, and properties only from a `propstat` whose status is 200.
    private struct Handler: MinimalXMLReader.Handler {
        var members: [Member] = []
        var sawMultistatus = false
        private var textBuffer = ""
        /// Whether the current element's text is wanted.
        private var collecting = false
        /// The elements whose text is used (a switch: hashing each element's name for a set cost more).
        private static func isTextElement(_ name: String) -> Bool {
            switch name {
            case "href", "status", "getetag", "getlastmodified", "getcontentlength": true
            default: false
            }
        }
        private var response: Member?
        /// Properties of the current `propstat`, kept only if its status says 200.
        private var properties = Member(name: "", path: "")
        private var inPropstat = false
        private var propstatOK = true

        var wantsText: Bool { collecting }

        mutating func text(_ text: String) {
            textBuffer += text
        }

        mutating func start(namespace: String?, name: String) {
            textBuffer = ""
            guard namespace == "DAV:" else { return }
            collecting = Self.isTextElement(name)
            switch name {
            case "multistatus": sawMultistatus = true
            case "response": response = Member(name: "", path: "")
            case "propstat":
                inPropstat = true
                propstatOK = true
                properties = Member(name: "", path: "")
            case "collection" where inPropstat: properties.isCollection = true
            default: break
            }
        }

        mutating func end(namespace: String?, name: String) {
            guard namespace == "DAV:" else { return }
            let value = collecting ? String(WebDAVListing.trimmed(textBuffer)) : ""
            collecting = false
            switch name {
            case "href" where !inPropstat && response != nil:
                let path = WebDAVListing.path(ofHref: value)
                response?.path = path
                response?.hrefAuthority = WebDAVListing.hrefAuthority(value)
                response?.name =
                    path.utf8.lastIndex(of: UInt8(ascii: "/")).map { String(path[path.utf8.index(after: $0)...]) }
                    ?? path
            case "status" where inPropstat:
                // "HTTP/1.1 200 OK"
                propstatOK = value.split(separator: " ").dropFirst().first == "200"
            case "getetag" where inPropstat: properties.etag = value.isEmpty ? nil : value
            case "getlastmodified" where inPropstat: properties.lastModified = value.isEmpty ? nil : value
            case "getcontentlength" where inPropstat: properties.contentLength = Int64(value)
            case "propstat":
                inPropstat = false
                if propstatOK, response != nil {
                    response!.isCollection = response!.isCollection || properties.isCollection
                    response!.etag = response!.etag ?? properties.etag
                    response!.lastModified = response!.lastModified ?? properties.lastModified
                    response!.contentLength = response!.contentLength ?? properties.contentLength
                }
            case "response":
                if let response { members.append(response) }
                response = nil
            default: break
            }
            textBuffer = ""
        }
    }
}
