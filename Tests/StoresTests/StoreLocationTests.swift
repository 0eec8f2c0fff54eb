import Foundation
import HTTP
import Snapshots
import Stores
import TestSupport
import Testing

/// `--store` values: parsed, never concatenated onto, so a store never writes outside its collection.
struct StoreLocationTests {
    @Test(
        "a store URL with a query, a fragment, dot segments, control characters or another host is refused",
        arguments: [
            ("http://host/notes.txt?", "has a query ('?')"),
            ("https://host/store/?x=1", "has a query ('?')"),
            ("http://host/notes.txt#", "has a fragment ('#')"),
            ("http://host/a/../b/", "has a '..' segment"),
            ("http://host/a/%2e%2e/b/", "has a '..' segment"),
            ("http://host/./b/", "has a '.' segment"),
            ("http://host/a%2Fb/", "has an encoded '/'"),
            ("http://host/a\u{1B}b/", "holds control characters"),
            ("file://otherhost/srv/store", "names another machine ('otherhost')"),
            ("ftp://host/x", "has the unsupported scheme 'ftp'"),
            ("http:///path", "has no host"),
        ])
    func refused(text: String, reason: String) {
        #expect(throws: StoreLocation.ParseError.self) { try StoreLocation.parse(text) }
        do {
            _ = try StoreLocation.parse(text)
        } catch {
            #expect(error.reason.hasPrefix(reason), "\(error.reason)")
        }
    }

    @Test("folders, this machine's file:// URLs and plain collection URLs are stores")
    func accepted() throws {
        #expect(try StoreLocation.parse("/srv/a?b#c") == .directory(path: "/srv/a?b#c"))
        #expect(try StoreLocation.parse("file:///srv/store") == .directory(path: "/srv/store"))
        #expect(try StoreLocation.parse("file://localhost/srv/store") == .directory(path: "/srv/store"))
        let webDAV = try StoreLocation.parse("https://me:pw@cloud.test/dav/files/me/aggctl/")
        #expect(webDAV.backend == WebDAVBackend.name)
        #expect(webDAV.displayName == "https://cloud.test/dav/files/me/aggctl/")
        #expect(webDAV.address == "https://me:pw@cloud.test/dav/files/me/aggctl/", "the password stays for opening")
        #expect(try StoreLocation.parse("HTTP://cloud.test/x/").backend == WebDAVBackend.name)
        #expect(try StoreLocation.parse("./a://b").backend == DirectoryBackend.name, "a path holding '://'")
    }
}

/// A listing is the server's word: entries outside the collection are ignored, not mapped into the store.
struct HostileListingTests {
    @Test("a listing's entries outside the collection (../, subfolders, encoded slashes, other hosts) are ignored")
    func outsideEntriesIgnored() throws {
        let server = try LocalServer.sharedHTTPServer()
        let store = WebDAVStore(
            url: URL(string: "\(server.origin)/hostile/store/")!, client: HTTPClient(.init(retry: .never)))
        #expect(try store.listRecords().map(\.name).sorted() == ["full.json", "good.json"])
    }
}

/// Objects a server stores compressed (`Content-Encoding: gzip`) are records too: libcurl decodes them.
struct CompressedRecordTests {
    @Test("an object stored with Content-Encoding gzip is read as the record it holds, and cached")
    func gzipRecord() throws {
        let server = try LocalServer.sharedHTTPServer()
        let store = WebDAVStore(
            url: URL(string: "\(server.origin)/gzip/store/")!, client: HTTPClient(.init(retry: .never)))
        var cache: ParseCache? = ParseCache(store: "gzip", readerVersion: "test")
        let contents = try store.readContents(cache: &cache, now: Date())
        #expect(contents.problems == [])
        #expect(contents.records.first?.snapshot.providers.first?.accountEmail == "zip@x.test")
        #expect(contents.isFinal)
        #expect(cache?.count == 1)
    }
}

/// An S3 listing is the server's word too: keys outside the prefix, below it or with control characters
/// are never records of the store, and a listing that claims to go on without a new token is refused.
struct HostileS3ListingTests {
    func store(bucket: String) throws -> any RecordStore {
        let server = try LocalServer.sharedHTTPServer()
        return try S3Backend().open(
            try StoreLocation.parse("s3://\(bucket)/team/"),
            context: StoreContext(
                environment: [
                    "AWS_ENDPOINT_URL": server.origin, "AWS_ACCESS_KEY_ID": "K", "AWS_SECRET_ACCESS_KEY": "S",
                ],
                home: "/nonexistent", http: { HTTPClient.Configuration(retry: .never) }))
    }

    @Test("keys outside the prefix, deeper than it, hidden or with a control character are not records")
    func outsideKeysIgnored() throws {
        let store = try store(bucket: "s3-hostile")
        // The one with a bell in its name is listed, so that reading it says why it is refused; it is never
        // sent anywhere as a key.
        #expect(try store.listRecords().map(\.name) == ["good.json", "bell\u{07}.json"])
        let problems = try store.readContents().problems
        #expect(
            problems.contains { $0.file == "bell\u{07}.json" && $0.reason.contains("not a record name") }, "\(problems)"
        )
    }

    @Test("a listing that says it goes on, with the same token every time, fails instead of looping")
    func loopingListingFails() throws {
        #expect {
            try store(bucket: "s3-looping").listRecords()
        } throws: { error in
            "\(error)".contains("no new continuation token")
        }
    }
}
