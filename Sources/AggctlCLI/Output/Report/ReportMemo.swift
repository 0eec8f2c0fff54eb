import Portable
import Snapshots

/// Pieces of the report's page kept from one rendering to the next, by a digest of exactly what each is
/// drawn from: an account's daily bars change once a UTC day or when a device publishes new figures, and
/// were two fifths of a page's rendering (BENCHMARKS.md, "The report and the dashboard"). `serve` keeps one
/// in memory across its reads; `report` keeps one in the state folder between runs (`load`, `save`).
///
/// Only pieces used by the last rendering are kept, so the memo is the size of one page's pieces.
final class ReportMemo: @unchecked Sendable {
    typealias Key = ContentDigest.Value

    private let lock = Lock()
    private var kept: [Key: String] = [:]
    private var used: [Key: String] = [:]
    /// Pieces found and pieces drawn anew in the last rendering (for the benchmark's note).
    private(set) var hits = 0
    private(set) var misses = 0

    init() {}

    /// The piece of `key`, drawn by `draw` unless it is kept.
    func piece(_ key: Key, draw: () -> String) -> String {
        lock.lock()
        if let found = used[key] ?? kept[key] {
            used[key] = found
            hits += 1
            lock.unlock()
            return found
        }
        lock.unlock()
        let drawn = draw()
        lock.lock()
        used[key] = drawn
        misses += 1
        lock.unlock()
        return drawn
    }

    /// Ends a rendering: what it used is what is kept for the next.
    func finishRendering() {
        lock.lock()
        kept = used
        used = [:]
        lock.unlock()
    }

    // MARK: Kept between runs of `report`

    static let magic: [UInt8] = Array("AGRM".utf8)
    static let format: UInt32 = 1

    /// The memo kept at `path`; an empty one when there is none, or it is damaged or another version's
    /// (a kept file is never trusted: it is read or refused whole).
    static func load(from path: String, readerVersion: String) -> ReportMemo {
        let memo = ReportMemo()
        guard let data = FileSystem.contents(of: path),
            let kept = try? BinaryReader.unseal(
                data, magic: magic, format: format, readerVersion: readerVersion,
                {
                    reader -> [Key: String] in
                    var kept: [Key: String] = [:]
                    for _ in 0..<(try reader.count()) {
                        let key = Key(first: try reader.u64(), second: try reader.u64())
                        kept[key] = try reader.string()
                    }
                    return kept
                })
        else { return memo }
        memo.kept = kept
        return memo
    }

    /// Keeps what the last rendering used at `path` (atomically, mode 0600); a failure costs the next
    /// run its reuse only.
    func save(to path: String, readerVersion: String) {
        lock.lock()
        let pieces = kept
        lock.unlock()
        var writer = BinaryWriter()
        writer.header(magic: Self.magic, format: Self.format, readerVersion: readerVersion)
        writer.u32(UInt32(pieces.count))
        for (key, piece) in pieces.sorted(by: { ($0.key.first, $0.key.second) < ($1.key.first, $1.key.second) }) {
            writer.u64(key.first)
            writer.u64(key.second)
            writer.string(piece)
        }
        try? AtomicFile.writePrivate(writer.sealed(), to: path)
    }
}
