import Portable
import Serialization
import Snapshots

/// Pieces of the report's page kept from one rendering to the next, under exactly what each is drawn
/// from: an account's daily bars change once a UTC day or when a device publishes new figures, and were
/// two fifths of a page's rendering (BENCHMARKS.md, "The report and the dashboard"). `serve` keeps one in
/// memory across its reads; `report` keeps one in the state folder between runs (`load`, `save`).
///
/// A piece is found by its whole source, compared byte for byte (a dictionary with the process's seeded
/// hash): a store's writer cannot make one account's source find another's bars. Only pieces used by the
/// last rendering are kept, so the memo is the size of one page's pieces and their sources.
final class ReportMemo: @unchecked Sendable {
    /// The bytes of everything a piece is drawn from.
    struct Source: Hashable {
        var bytes: [UInt8]

        // The bytes at once: an array hashes element by element.
        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    private let lock = Lock()
    private var kept: [Source: String] = [:]
    private var used: [Source: String] = [:]
    /// Pieces found and pieces drawn anew in the last rendering (for the benchmark's note).
    private(set) var hits = 0
    private(set) var misses = 0

    init() {}

    /// The piece drawn from `source` (the bytes of everything `draw` depends on), drawn by `draw` unless
    /// it is kept.
    func piece(source bytes: [UInt8], draw: () -> String) -> String {
        let source = Source(bytes: bytes)
        lock.lock()
        if let found = used[source] ?? kept[source] {
            used[source] = found
            hits += 1
            lock.unlock()
            return found
        }
        lock.unlock()
        let drawn = draw()
        lock.lock()
        used[source] = drawn
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
    static let format: UInt32 = 3

    /// The memo kept at `path`; an empty one when there is none, or it is damaged or another version's
    /// (a kept file is never trusted: it is read or refused whole).
    static func load(from path: String, readerVersion: String) -> ReportMemo {
        let memo = ReportMemo()
        guard let data = FileSystem.contents(of: path),
            let kept = try? BinaryReader.unseal(
                data, magic: magic, format: format, readerVersion: readerVersion,
                {
                    reader -> [Source: String] in
                    var kept: [Source: String] = [:]
                    for _ in 0..<(try reader.count()) {
                        let source = Source(bytes: Array(try reader.take(try reader.count())))
                        kept[source] = try reader.string()
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
        // In the order of the sources' bytes, so that the same pieces make the same file.
        for (source, piece) in pieces.sorted(by: { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }) {
            writer.u32(UInt32(source.bytes.count))
            writer.raw(source.bytes)
            writer.string(piece)
        }
        try? AtomicFile.writePrivate(writer.sealed(), to: path)
    }
}
