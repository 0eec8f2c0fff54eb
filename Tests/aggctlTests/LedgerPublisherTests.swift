import Foundation
import Snapshots
import Stores
import TestSupport
import Testing

@testable import AggctlCLI

/// What `publish` writes of the ledger, and what it refuses to.
struct LedgerPublisherTests {
    let folder = TemporaryDirectory("aggctl-ledger-publisher")

    @Test("a month readers would refuse (over 4 MiB) is not written, and says why; a month within it is")
    func oversizedMonth() throws {
        let store = DirectoryStore(path: folder.file("store"))
        try store.writeRecord(Data("{}".utf8), for: Records.id("laptop"))
        let publisher = LedgerPublisher(store: store, deviceID: Records.id("laptop"))
        // Every hour of December with 30 models: some 22 000 rows, past 4 MiB once encoded.
        let start = Records.date("2026-12-01T00:00:00Z")
        let huge = (0..<744).flatMap { hour in
            (0..<30).map { model in
                LedgerRow(
                    at: start.addingTimeInterval(Double(hour) * 3600), providerID: "claude",
                    accountEmail: "someone-with-a-long-address@example.com", model: "claude-model-number-\(model)",
                    inputTokens: 123_456, outputTokens: 7890, cacheWriteTokens: 1234, cacheReadTokens: 987_654,
                    costUSD: 0.123456789)
            }
        }
        do {
            _ = try publisher.publish(huge, now: start, pricesAsOf: "2026-12-07")
            Issue.record("an oversized month was written")
        } catch let failure as CommandFailure {
            #expect(failure.message.contains("ledger month '2026-12.json' is"), "\(failure.message)")
            #expect(failure.message.contains("over the 4194304 readers take"))
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("store/ledger/laptop/2026-12.json")))
        #expect(try publisher.publish(Array(huge.prefix(100)), now: start, pricesAsOf: "2026-12-07") == ["2026-12"])
    }
}
