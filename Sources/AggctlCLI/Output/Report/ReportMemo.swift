import Portable
import Snapshots

/// Pieces of the report's page kept from one rendering to the next, under exactly what each is drawn
/// from: an account's daily bars change once a UTC day or when a device publishes new figures, and were
/// two fifths of a page's rendering (BENCHMARKS.md, "The report and the dashboard"). `serve` keeps one in
/// memory across its reads; `report` keeps one in the state folder between runs (`load`, `save`).
///
/// A piece is found by a digest of its source and given back only when the source is the same byte for
/// byte: the digest is not one a store's writer could not collide, and a collision must not put one
/// account's bars in another's section. Only pieces used by the last rendering are kept, so the memo is
/// the size of one page's pieces and their sources.
final class ReportMemo: @unchecked Sendable {
    typealias Key = ContentDigest.Value

    struct Entry {
        var source: [UInt8]
        var piece: String
    }

    private let lock = Lock()
    private var kept: [Key: Entry] = [:]
    private var used: [Key: Entry] = [:]
    /// Pieces found and pieces drawn anew in the last rendering (for the benchmark's note).
    private(set) var hits = 0
    private(set) var misses = 0

    init() {}

    /// The piece drawn from `source` (the bytes of everything `draw` depends on), drawn by `draw` unless
    /// it is kept.
    func piece(source: [UInt8], draw: () -> String) -> String {
        piece(key: ContentDigest.of(source), source: source, draw: draw)
    }

    /// `piece(source:draw:)` under a key given: the tests' way to make two sources share one.
    func piece(key: Key, source: [UInt8], draw: () -> String) -> String {
        lock.lock()
        if let found = used[key] ?? kept[key], found.source == source {
            used[key] = found
            hits += 1
            lock.unlock()
            return found.piece
        }
        lock.unlock()
        let drawn = draw()
        lock.lock()
        used[key] = Entry(source: source, piece: drawn)
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
    static let format: UInt32 = 2

    /// The memo kept at `path`; an empty one when there is none, or it is damaged or another version's
    /// (a kept file is never trusted: it is read or refused whole).
    static func load(from path: String, readerVersion: String) -> ReportMemo {
        let memo = ReportMemo()
        guard let data = FileSystem.contents(of: path),
            let kept = try? BinaryReader.unseal(
                data, magic: magic, format: format, readerVersion: readerVersion,
                {
                    reader -> [Key: Entry] in
                    var kept: [Key: Entry] = [:]
                    for _ in 0..<(try reader.count()) {
                        let key = Key(first: try reader.u64(), second: try reader.u64())
                        let source = Array(try reader.take(try reader.count()))
                        kept[key] = Entry(source: source, piece: try reader.string())
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
        for (key, entry) in pieces.sorted(by: { ($0.key.first, $0.key.second) < ($1.key.first, $1.key.second) }) {
            writer.u64(key.first)
            writer.u64(key.second)
            writer.u32(UInt32(entry.source.count))
            writer.raw(entry.source)
            writer.string(entry.piece)
        }
        try? AtomicFile.writePrivate(writer.sealed(), to: path)
    }
}
