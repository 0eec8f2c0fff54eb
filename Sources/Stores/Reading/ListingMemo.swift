import Portable
import Serialization
import Snapshots

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The record names of a store's last listing, kept under the store's names stamp (for a folder, its own
/// times and inode): while the stamp stands, no name was added, removed or renamed, so a listing examines
/// each record again without reading the folder. Reading a folder of a thousand records costs more than
/// examining them all (ext4 hashes every name of a large folder on each read), a tenth of a warm `status`.
///
/// It trusts the folder's times as the parse cache trusts each record's: a memo is kept only for a folder
/// that last changed at least `ParseCache.settleTime` before it was listed, so a later change cannot
/// carry the same times (a clock's tick is far shorter). The stamp is taken before the names are read: a
/// change while they are read leaves the memo under the older stamp, which the next listing no longer
/// finds.
public struct ListingMemo: Sendable, Equatable {
    public var store: String
    public var stamp: RecordVersion
    /// Sorted by name.
    public var names: [String]

    public init(store: String, stamp: RecordVersion, names: [String]) {
        self.store = store
        self.stamp = stamp
        self.names = names
    }

    static let magic: [UInt8] = Array("AGGNAMES".utf8)
    static let format: UInt32 = 1

    /// The listing of `store`, its names taken from the memo at `path` when the store's names stamp is the
    /// one the memo was kept under; otherwise listed in full, with the memo to keep for the next listing
    /// (nil when there is nothing worth keeping): the caller saves it when it has a core to spare.
    ///
    /// - Parameters:
    ///   - now: the real time, for judging whether the folder changed too recently to be trusted.
    ///   - examining: false for a reader with no versions to compare them with, which learns each one in
    ///     reading the record (`RecordStore.listRecordNames`).
    /// - Throws: what `listRecords()` throws.
    public static func listing(
        of store: any RecordStore, memo path: String, readerVersion: String, now: Date, examining: Bool = true
    ) throws -> (records: [RecordInfo], memoToKeep: ListingMemo?) {
        guard let stamp = store.namesStamp() else { return (try store.sortedListing(examining: examining), nil) }
        let name = store.displayName
        if let memo = load(from: path, store: name, readerVersion: readerVersion, stamp: stamp) {
            return (examining ? try store.listRecords(named: memo.names) : memo.names.map { RecordInfo(name: $0) }, nil)
        }
        let listing = try store.sortedListing(examining: examining)
        let memo = isSettled(stamp, at: now) ? ListingMemo(store: name, stamp: stamp, names: listing.map(\.name)) : nil
        return (listing, memo)
    }

    /// Whether a folder with `stamp` last changed at least the settle time before `now`: its change time
    /// too, which no one can set back (a sync client sets a folder's modification time to the sender's).
    static func isSettled(_ stamp: RecordVersion, at now: Date) -> Bool {
        guard case .file(_, let modified, let changed, _) = stamp else { return false }
        let latest = Double(max(modified, changed)) / 1e9
        return now.timeIntervalSince1970 - latest >= ParseCache.settleTime
    }

    /// The memo file of `store` in the cache folder `directory`.
    public static func path(in directory: String, store: String) -> String {
        KeptFile.folderNames.path(in: directory, store: store)
    }

    /// The memo at `path`; nil when it is missing, damaged, another store's or another version's, or
    /// holds a name that is not a record's (a memo never makes a listing look outside the store).
    ///
    /// - Parameter stamp: the folder's stamp now, when only a memo kept under it will do. A memo under
    ///   another one is turned away by its first bytes, unread: a store that changed since the last run
    ///   (a team's, a record renamed into it every minute) finds the memo of its older state on every
    ///   run, and decoding its every name first was a twentieth of the listing.
    public static func load(
        from path: String, store: String, readerVersion: String, stamp expected: RecordVersion? = nil
    ) -> ListingMemo? {
        // The store and stamp a memo was kept under, read from its first bytes (unchecked: they may only
        // turn it away).
        func keptUnder(_ bytes: UnsafeRawBufferPointer) -> RecordVersion? {
            try? BinaryReader.peek(bytes, magic: magic, format: format, readerVersion: readerVersion) { input in
                guard try input.string() == store else { throw BinaryReader.Corrupt() }
                return try input.version()
            }
        }
        let data =
            if let expected {
                FileSystem.contents(of: path, unless: { keptUnder($0).map { $0 != expected } ?? false })
            } else {
                FileSystem.contents(of: path)
            }
        return data.flatMap { try? decode($0, store: store, readerVersion: readerVersion, stamp: expected) }
    }

    /// A memo from a file's bytes; throws when they are damaged, another store's or another version's,
    /// kept under another stamp than `expected` (when given), or hold a name that is not a record's.
    static func decode(
        _ data: Data, store: String, readerVersion: String, stamp expected: RecordVersion? = nil
    ) throws -> ListingMemo {
        try BinaryReader.unseal(data, magic: magic, format: format, readerVersion: readerVersion) { input in
            guard try input.string() == store else { throw BinaryReader.Corrupt() }
            let stamp = try input.version()
            if let expected, stamp != expected { throw BinaryReader.Corrupt() }
            let count = Int(try input.u32())
            var names: [String] = []
            names.reserveCapacity(min(count, 1 << 20))
            var previous = UnsafeRawBufferPointer(start: nil, count: 0)
            for _ in 0..<count {
                // Judged on the bytes, before a String is made: a name of this store's records (no
                // folder separator, no NUL that would cut the name short for the kernel), in order.
                let name = try input.take(Int(try input.u32()))
                guard staysInFolder(name), ByteOrder.compare(previous, name) < 0 else { throw BinaryReader.Corrupt() }
                names.append(String(decoding: name, as: UTF8.self))
                previous = name
            }
            return ListingMemo(store: store, stamp: stamp, names: names)
        }
    }

    /// Whether `name` is a record's name (`RecordInfo.isRecordName`) that stays inside the folder.
    private static func staysInFolder(_ name: UnsafeRawBufferPointer) -> Bool {
        guard RecordInfo.isRecordName(name) else { return false }
        return memchr(name.baseAddress!, Int32(UInt8(ascii: "/")), name.count) == nil
            && memchr(name.baseAddress!, 0, name.count) == nil
    }

    /// Writes the memo atomically, not flushed (a memo torn by a power cut fails its checksum).
    public func save(to path: String, readerVersion: String) throws {
        try AtomicFile.writePrivate(encode(readerVersion: readerVersion), to: path)
    }

    /// The memo's file: header, store, stamp, the names, sealed with a checksum.
    func encode(readerVersion: String) -> Data {
        var out = BinaryWriter(capacity: 256 + names.count * 40)
        out.header(magic: ListingMemo.magic, format: ListingMemo.format, readerVersion: readerVersion)
        out.string(store)
        out.version(stamp)
        out.u32(UInt32(names.count))
        for name in names { out.string(name) }
        return out.sealed()
    }
}
