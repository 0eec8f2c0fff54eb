import Portable
import Serialization
import Snapshots

/// The record names a server store's last listing had, kept beside the parse cache.
///
/// The parse cache cannot say which records the last run saw: it leaves out records changed within its
/// settle time, and a busy machine's record always is. A record that this list has and a new listing
/// lacks may be mid-replace (`RelistingStore` looks for it again). Checksummed like the caches; a damaged
/// or foreign file is no list.
enum ListedNames {
    static let magic = Array("AGGLISTD".utf8)
    static let format: UInt32 = 1

    static func path(in folder: String, store: String) -> String {
        KeptFile.listedNames.path(in: folder, store: store)
    }

    /// The names kept at `path` for `store`; none when the file is missing, damaged or another's.
    static func load(from path: String, store: String) -> Set<String> {
        guard let data = FileSystem.contents(of: path) else { return [] }
        let names = try? BinaryReader.unseal(data, magic: magic, format: format, readerVersion: "") {
            input in
            guard try input.string() == store else { throw BinaryReader.Corrupt() }
            return Set(try (0..<(try input.count())).map { _ in try input.string() })
        }
        return names ?? []
    }

    /// Keeps `names` for `store` (atomically, not flushed: a torn file fails its checksum).
    static func save(_ names: Set<String>, to path: String, store: String) {
        var out = BinaryWriter(capacity: 64 + names.count * 24)
        out.header(magic: magic, format: format, readerVersion: "")
        out.string(store)
        out.u32(UInt32(names.count))
        for name in names.sorted() { out.string(name) }
        try? AtomicFile.writePrivate(out.sealed(), to: path)
    }
}
