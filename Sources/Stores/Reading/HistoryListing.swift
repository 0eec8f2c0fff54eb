import Portable
import Serialization

/// The fingerprint of the listing the last read with full history found (`KeptFile.historyListing`).
///
/// A read with full history has no parse cache to say whether its records are the last read's, and a
/// merge of them (megabytes at 1000 records) is worth keeping only when they are: a store that changes
/// every run would otherwise have it written every run, and `serve` reads every few seconds.
enum HistoryListing {
    static let magic: [UInt8] = Array("AGGSEEN1".utf8)
    static let format: UInt32 = 1

    /// The fingerprint kept at `path`; nil when it is missing, damaged or another version's.
    static func load(from path: String, readerVersion: String) -> UInt64? {
        FileSystem.contents(of: path).flatMap { data in
            try? BinaryReader.unseal(data, magic: magic, format: format, readerVersion: readerVersion) { try $0.u64() }
        }
    }

    /// Keeps `fingerprint` (a cache: a failed write only costs the next run its memo).
    static func save(_ fingerprint: UInt64, to path: String, readerVersion: String) {
        var out = BinaryWriter(capacity: 64)
        out.header(magic: magic, format: format, readerVersion: readerVersion)
        out.u64(fingerprint)
        try? AtomicFile.writePrivate(out.sealed(), to: path)
    }
}
