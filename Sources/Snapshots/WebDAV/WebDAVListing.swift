import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

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
        var isCollection = false
        var etag: String?
        var lastModified: String?
        var contentLength: Int64?
    }

    var members: [Member] = []

    /// What a listing asks for, and nothing more (Apache would otherwise send lock discovery per file).
    static let request = Data(
        """
        <?xml version="1.0" encoding="utf-8"?>
        <D:propfind xmlns:D="DAV:"><D:prop><D:resourcetype/><D:getetag/><D:getlastmodified/>\
        <D:getcontentlength/></D:prop></D:propfind>
        """.utf8)

    /// - Throws: `ListingError` with the parser's position when `data` is not a multistatus document.
    init(parsing data: Data) throws {
        let delegate = Delegate()
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = delegate
        guard parser.parse(), delegate.sawMultistatus else {
            throw ListingError(line: parser.lineNumber, detail: parser.parserError.map { "\($0)" })
        }
        members = delegate.members
    }

    struct ListingError: Error {
        var line: Int
        var detail: String?
    }

    /// Turns an `href` (an absolute path or a full URL, percent-encoded) into a decoded path.
    static func path(ofHref href: String) -> String {
        var path = href.trimmingCharacters(in: .whitespacesAndNewlines)
        if let scheme = path.range(of: "://") {
            let rest = path[scheme.upperBound...]
            path = rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? "/"
        }
        let decoded = path.removingPercentEncoding ?? path
        return decoded.count > 1 && decoded.hasSuffix("/") ? String(decoded.dropLast()) : decoded
    }

    private final class Delegate: NSObject, XMLParserDelegate {
        var members: [Member] = []
        var sawMultistatus = false
        private var text = ""
        private var response: Member?
        /// Properties of the current `propstat`, kept only if its status says 200.
        private var properties = Member(name: "", path: "")
        private var inPropstat = false
        private var propstatOK = true

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            text = ""
            guard namespaceURI == "DAV:" else { return }
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

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            text += string
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            guard namespaceURI == "DAV:" else { return }
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            switch name {
            case "href" where !inPropstat && response != nil:
                let path = WebDAVListing.path(ofHref: value)
                response?.path = path
                response?.name = path.split(separator: "/").last.map(String.init) ?? ""
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
            text = ""
        }
    }
}

extension WebDAVListing {
    /// An entity tag as an opaque version: the weak prefix and quotes removed (Apache marks a file changed
    /// within the last second `W/` and drops the mark later; the content is the same).
    static func opaqueTag(_ etag: String) -> String {
        var tag = Substring(etag.trimmingCharacters(in: .whitespaces))
        if tag.hasPrefix("W/") || tag.hasPrefix("w/") { tag = tag.dropFirst(2) }
        if tag.count >= 2, tag.hasPrefix("\""), tag.hasSuffix("\"") { tag = tag.dropFirst().dropLast() }
        return String(tag)
    }
}
