import Foundation
import Serialization
import TestSupport
import Testing

@testable import Aggregator
@testable import Snapshots
@testable import Stores

/// Kept files whose content the `caches` fuzzer (`script/fuzz caches`) found crashing a decoder, kept in
/// `Fuzz/Regressions/caches/`: sealed with a valid checksum as the fuzzer seals them, each must now be
/// read or refused by every decoder of kept files, without a crash.
struct KeptFileFuzzRegressionTests {
    /// `content` as a kept file of `magic` and `format` for the store "fuzz-store" (what the harness makes).
    func sealed(_ content: Data, _ magic: [UInt8], _ format: UInt32) -> Data {
        var out = BinaryWriter(capacity: content.count + 64)
        out.header(magic: magic, format: format, readerVersion: "fuzz")
        out.string("fuzz-store")
        content.withUnsafeBytes { out.raw($0) }
        return out.sealed()
    }

    @Test("kept files that crashed a decoder are read or refused by each")
    func keptFiles() throws {
        let paths = Repository.fuzzRegressions("caches")
        #expect(!paths.isEmpty)
        for path in paths {
            let content = try Data(contentsOf: URL(fileURLWithPath: path))
            _ = try? ParseCache.decode(
                sealed(content, ParseCache.magic, ParseCache.format), store: "fuzz-store", readerVersion: "fuzz")
            _ = try? MergeMemo.decode(
                sealed(content, MergeMemo.magic, MergeMemo.format), store: "fuzz-store", readerVersion: "fuzz")
            _ = try? ListingMemo.decode(
                sealed(content, ListingMemo.magic, ListingMemo.format), store: "fuzz-store", readerVersion: "fuzz")
        }
    }
}
