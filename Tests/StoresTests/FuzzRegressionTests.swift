import Foundation
import TestSupport
import Testing

@testable import Snapshots
@testable import Stores

/// Inputs the fuzzers (`script/fuzz`) found crashing a parser, kept in `Fuzz/Regressions/TARGET/`: each
/// must now be read without a crash (rejected or accepted, as the parser decides).
struct FuzzRegressionTests {
    @Test(
        "WebDAV listings that crashed the parser are refused cleanly", arguments: Repository.fuzzRegressions("listing"))
    func listing(path: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: WebDAVListing.ListingError.self) { try WebDAVListing(parsing: data) }
    }

    // One test each for the targets with no finding yet (a parameterised test over no input would only
    // be reported as skipped); a new crasher in their folders is read here on the next run.
    @Test("records that crashed a reader are read or refused, the two readers agreeing")
    func records() throws {
        for path in Repository.fuzzRegressions("record") {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            if let fast = try? RecordCodec.decode(data, fileName: "fuzz.json") {
                #expect(try RecordCodec.decodeWithFoundation(data, fileName: "fuzz.json").snapshot == fast.snapshot)
            }
        }
    }

    @Test("--from inputs that crashed the reader are read or refused")
    func fromInputs() throws {
        for path in Repository.fuzzRegressions("input") {
            _ = try? UsageInput.providers(from: try Data(contentsOf: URL(fileURLWithPath: path)), now: Date())
        }
    }
}
