import Foundation
import HTTP
import Serialization
import TestSupport
import Testing

@testable import Snapshots
@testable import Stores

struct WebDAVListingTests {
    /// Apache's style: its own prefixes for live properties, weak ETags, a collection listing itself.
    static let apache = """
        <?xml version="1.0" encoding="utf-8"?>
        <D:multistatus xmlns:D="DAV:" xmlns:ns0="DAV:">
        <D:response xmlns:lp1="DAV:"><D:href>/dav/store/</D:href><D:propstat><D:prop>
        <lp1:resourcetype><D:collection/></lp1:resourcetype></D:prop><D:status>HTTP/1.1 200 OK</D:status>
        </D:propstat></D:response>
        <D:response xmlns:lp1="DAV:"><D:href>/dav/store/laptop%201.json</D:href><D:propstat><D:prop>
        <lp1:resourcetype/><lp1:getetag>W/"3f2-66185b07c98c0"</lp1:getetag>
        <lp1:getlastmodified>Mon, 30 Nov 2026 22:11:19 GMT</lp1:getlastmodified>
        <lp1:getcontentlength>1010</lp1:getcontentlength></D:prop><D:status>HTTP/1.1 200 OK</D:status>
        </D:propstat><D:propstat><D:prop><D:getetag>"never-used"</D:getetag></D:prop>
        <D:status>HTTP/1.1 404 Not Found</D:status></D:propstat></D:response>
        </D:multistatus>
        """

    /// nginx's style: lower-case prefix, full URLs in href, no ETag at all.
    static let nginx = """
        <?xml version="1.0" encoding="utf-8" ?><d:multistatus xmlns:d="DAV:">\
        <d:response><d:href>http://host/dav/store/desk.json</d:href><d:propstat><d:prop>\
        <d:getlastmodified>Mon, 30 Nov 2026 22:11:19 GMT</d:getlastmodified><d:getcontentlength>20</d:getcontentlength>\
        <d:resourcetype></d:resourcetype></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>\
        <d:response><d:href>/dav/store/sub/</d:href><d:propstat><d:prop><d:resourcetype><d:collection/>\
        </d:resourcetype></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response></d:multistatus>
        """

    @Test("members come with decoded names, ETag, date and length from the 200 propstat only")
    func apacheListing() throws {
        let listing = try WebDAVListing(parsing: Data(Self.apache.utf8))
        #expect(listing.members.map(\.name) == ["store", "laptop 1.json"])
        #expect(listing.members[0].isCollection && listing.members[0].path == "/dav/store")
        let record = listing.members[1]
        #expect(record.etag == #"W/"3f2-66185b07c98c0""#)
        #expect(record.contentLength == 1010)
        #expect(record.lastModified.flatMap(HTTPDate.parse) == RFC3339.parse("2026-11-30T22:11:19Z"))
    }

    @Test("full URLs in href, other prefixes and a missing ETag are understood")
    func nginxListing() throws {
        let listing = try WebDAVListing(parsing: Data(Self.nginx.utf8))
        #expect(listing.members.map(\.name) == ["desk.json", "sub"])
        #expect(listing.members[0].etag == nil && listing.members[0].contentLength == 20)
        #expect(listing.members[1].isCollection)
    }

    @Test("garbage and well-formed XML that is not a listing are both refused")
    func garbage() {
        #expect(throws: WebDAVListing.ListingError.self) { try WebDAVListing(parsing: Data("<html><body>".utf8)) }
        #expect(throws: WebDAVListing.ListingError.self) { try WebDAVListing(parsing: Data("<a>ok</a>".utf8)) }
    }

    @Test("hrefs become decoded paths: URL or path, percent escapes (UTF-8 too), no trailing slash")
    func hrefs() {
        #expect(WebDAVListing.path(ofHref: " https://h:8080/a/caf%C3%A9%20x.json\n") == "/a/café x.json")
        #expect(WebDAVListing.path(ofHref: "/dav/store/") == "/dav/store")
        #expect(WebDAVListing.path(ofHref: "http://h") == "/")
        #expect(WebDAVListing.path(ofHref: "/") == "/")
        #expect(WebDAVListing.path(ofHref: "/a/100%.json") == "/a/100%.json")
    }

    @Test("ETags are opaque: weak prefix and quotes removed")
    func tags() {
        #expect(RecordVersion.entityTag(#"W/"3f2-1""#) == .tag("3f2-1"))
        #expect(RecordVersion.entityTag(#""3f2-1""#) == .tag("3f2-1"))
        #expect(RecordVersion.entityTag("3f2-1") == .tag("3f2-1"))
    }

    @Test("HTTP dates are read; anything else is no date")
    func dates() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == RFC3339.parse("1994-11-06T08:49:37Z"))
        #expect(HTTPDate.parse("Thu, 29 Feb 2024 23:59:60 GMT") == RFC3339.parse("2024-03-01T00:00:00Z"))
        #expect(HTTPDate.parse("Mon, 30 Nov 2026 22:11:19 GMT") == RFC3339.parse("2026-11-30T22:11:19Z"))
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == nil)
        #expect(HTTPDate.parse("Sun, 06 Foo 1994 08:49:37 GMT") == nil)
    }
}

struct WebDAVCredentialsTests {
    let folder = TemporaryDirectory("aggctl-netrc")

    @Test("the URL's userinfo wins, then the environment, then ~/.netrc (by host, then default)")
    func precedence() throws {
        let netrc = try folder.write(
            "netrc",
            """
            machine other.example login x password y
            machine dav.example.org
              login carol password "with space"
            default login dan password d4n
            """)
        let env = ["AGGCTL_WEBDAV_USER": "erin", "AGGCTL_WEBDAV_PASSWORD": "envpass"]
        func resolve(_ url: String, _ environment: [String: String]) -> HTTPCredentials? {
            WebDAVCredentials.resolve(for: URL(string: url)!, environment: environment, netrcPath: netrc)
        }
        #expect(resolve("https://bob:p%40ss@dav.example.org/x/", env) == HTTPCredentials(user: "bob", password: "p@ss"))
        #expect(resolve("https://dav.example.org/x/", env) == HTTPCredentials(user: "erin", password: "envpass"))
        #expect(resolve("https://frank@dav.example.org/x/", env) == HTTPCredentials(user: "frank", password: "envpass"))
        #expect(resolve("https://dav.example.org/x/", [:]) == HTTPCredentials(user: "carol", password: "with space"))
        #expect(resolve("https://dan@dav.example.org/x/", [:]) == HTTPCredentials(user: "dan", password: "d4n"))
        #expect(resolve("https://elsewhere.example/x/", [:]) == HTTPCredentials(user: "dan", password: "d4n"))
        #expect(
            WebDAVCredentials.resolve(
                for: URL(string: "https://h/")!, environment: [:], netrcPath: folder.path + "/none")
                == nil)
    }
}

extension WebDAVListingTests {
    @Test("a real rclone listing (self-closing elements that redeclare the namespace) reads")
    func rcloneRedeclaring() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Repository.path("Fuzz/Corpus/listing/rclone-real.xml")))
        let listing = try WebDAVListing(parsing: data)
        #expect(listing.members.map(\.name) == ["s", "a.json"])
    }
}
