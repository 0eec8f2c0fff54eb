import Foundation
import Stores
import TestSupport
import Testing

/// WebDAV claims as the servers keep them: a claim older versions wrote as a file still counts, and a
/// claim whose machine stopped between making its collection and moving its bytes in reads empty, dated
/// by the collection, so that another machine takes it over after the wait (docs/alerts.md).
@Suite(
    "WebDAV claims on each server",
    .enabled(if: WebDAVServer.Kind.allCases.allSatisfy { RequiredTool.available($0.tool) }, missingServerReason))
struct WebDAVClaimsTests {
    @Test(arguments: WebDAVServer.Kind.allCases)
    func layouts(on kind: WebDAVServer.Kind) throws {
        let harness = try WebDAVHarness(kind)
        let store = WebDAVStore(url: harness.storeURL, client: WebDAVHarness.client())
        let claims = try #require(store.claims)
        let folder = harness.storePath + "/alerts"
        try FileManager.default.createDirectory(atPath: folder + "/evt-half", withIntermediateDirectories: true)
        for path in [harness.storePath, folder, folder + "/evt-half"] { chmod(path, 0o777) }
        try Data(#"{"device":"old-laptop"}"#.utf8).write(to: URL(fileURLWithPath: folder + "/evt-old"))
        let twoHoursAgo = Date().addingTimeInterval(-7200)
        try FileManager.default.setAttributes([.modificationDate: twoHoursAgo], ofItemAtPath: folder + "/evt-half")
        let old = try #require(ClaimName("evt-old"))
        let half = try #require(ClaimName("evt-half"))

        #expect(try claims.read(old)?.data == Data(#"{"device":"old-laptop"}"#.utf8))
        #expect(try claims.create(old, data: Data("new".utf8)) == false, "an older version's claim holds")
        let halfMade = try #require(try claims.read(half))
        #expect(halfMade.data.isEmpty)
        #expect(abs(halfMade.modified.timeIntervalSince(twoHoursAgo)) < 5, "dated by its collection")
        #expect(Set(try claims.names()) == [old, half])
        claims.removeClaims(olderThan: Date().addingTimeInterval(3600))
        #expect(try claims.names().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty, "nothing left behind")
    }
}
