import Portable
import Serialization
import Snapshots

/// What a collector made of all its log files last time, kept while not one of them changed.
///
/// A run with nothing new still loaded every file's partial result from `LogScanState` and combined
/// them again (for Claude, de-duplicating every cached response: 77 % of such a run). When the files'
/// names, inodes, sizes and modification times are all as they were, the combination is too: it is
/// read back from one small file instead. Checksummed like the caches; a damaged or foreign memo only
/// costs the full path. Files changed in the last two seconds make no memo (a coarse clock could hide
/// a rewrite).
enum LogScanMemo {
    /// What a memo holds: the collector's combined scan in the binary form of the caches.
    protocol Summary {
        static var memoMagic: String { get }
        func encode(into out: inout BinaryWriter)
        static func decode(from input: inout BinaryReader) throws -> Self
    }

    static let format: UInt32 = 2

    /// A file changed more recently than this may change again within its time stamp's tick without
    /// the stamp showing it ("racily clean"): no memo is kept then. The stores' parse cache waits as long.
    static let settleTime: TimeInterval = 2

    /// The fingerprint of `files` as they are now, whatever their order; nil when one cannot be examined
    /// or changed just now.
    ///
    /// Each file's name, inode, size and modification time are hashed on their own, and the hashes
    /// summed: a set's fingerprint, so that the walk's order (which `readdir` decides) needs no sort.
    static func fingerprint(of files: [DirectoryWalk.Found], now: Date = Date()) -> UInt64? {
        let settled = Int64((now.timeIntervalSince1970 - settleTime) * 1_000_000_000)
        var sum: UInt64 = 0
        for file in files {
            guard let info = file.identity, info.modified < settled else { return nil }
            var hash = mixed(BinaryWriter.fnv1a(file.path.utf8) ^ info.inode)
            hash = mixed(hash ^ UInt64(bitPattern: info.size))
            sum &+= mixed(hash ^ UInt64(bitPattern: info.modified))
        }
        return mixed(sum ^ UInt64(files.count))
    }

    /// What stands for a memo's ledger rows: the logs' fingerprint and the reader that made them
    /// (another version, zone or price table makes other rows).
    static func ledgerFingerprint(_ fingerprint: UInt64?, _ readerVersion: String) -> UInt64? {
        fingerprint.map { mixed($0 ^ BinaryWriter.fnv1a(readerVersion.utf8)) }
    }

    /// A 64-bit finalizer (SplitMix64's): every bit of the result depends on every bit of `value`, so
    /// that sums of such hashes do not cancel.
    static func mixed(_ value: UInt64) -> UInt64 {
        var mixed = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    static func load<Value: Summary>(_ type: Value.Type, from path: String, fingerprint: UInt64, readerVersion: String)
        -> Value?
    {
        guard let data = FileSystem.contents(of: path) else { return nil }
        return try? BinaryReader.unseal(
            data, magic: Array(Value.memoMagic.utf8), format: format, readerVersion: readerVersion
        ) { input in
            guard try input.u64() == fingerprint else { throw BinaryReader.Corrupt() }
            return try Value.decode(from: &input)
        }
    }

    /// Saves `value` for `fingerprint` (atomically, not flushed: a torn memo fails its checksum).
    static func save<Value: Summary>(_ value: Value, to path: String, fingerprint: UInt64, readerVersion: String) {
        var out = BinaryWriter(capacity: 4096)
        out.header(magic: Array(Value.memoMagic.utf8), format: format, readerVersion: readerVersion)
        out.u64(fingerprint)
        value.encode(into: &out)
        try? AtomicFile.writePrivate(out.sealed(), to: path)
    }
}
