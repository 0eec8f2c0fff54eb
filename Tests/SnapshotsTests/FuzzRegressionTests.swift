import Foundation
import TestSupport
import Testing

@testable import Snapshots

/// Inputs the fuzzers (`script/fuzz`) found crashing a parser, kept in `Fuzz/Regressions/TARGET/`: each
/// must now be read without a crash (rejected or accepted, as the parser decides).
struct FuzzRegressionTests {
    static func inputs(_ target: String) -> [String] {
        let folder = Repository.path("Fuzz/Regressions/\(target)")
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { !$0.hasPrefix(".") }.sorted().map { folder + "/" + $0 }
    }

    @Test("WebDAV listings that crashed the parser are refused cleanly", arguments: inputs("listing"))
    func listing(path: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: WebDAVListing.ListingError.self) { try WebDAVListing(parsing: data) }
    }

    @Test("records that crashed a reader are read or refused, the two readers agreeing", arguments: inputs("record"))
    func record(path: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        if let fast = try? SnapshotCodec.decode(data, fileName: "fuzz.json") {
            #expect(try SnapshotCodec.decodeWithFoundation(data, fileName: "fuzz.json") == fast)
        }
    }

    @Test("--from inputs that crashed the reader are read or refused", arguments: inputs("input"))
    func input(path: String) throws {
        _ = try? UsageInput.providers(from: try Data(contentsOf: URL(fileURLWithPath: path)), now: Date())
    }
}
