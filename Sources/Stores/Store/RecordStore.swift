import Portable
import Serialization
import Snapshots

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where device records are shared: a folder, a WebDAV collection, an S3 bucket prefix, ...
///
/// A store holds one record per device, `<deviceID>.json`. Every implementation passes the shared
/// conformance suite (`Tests/TestSupport/StoreConformance`), and translates its native failures (errno,
/// HTTP status, curl codes, S3 error codes) into `StoreError`, so that callers and exit codes never
/// depend on the medium. A kind of store is registered once, as a `StoreBackend` in `StoreRegistry`.
public protocol RecordStore: Sendable {
    /// The store's location for messages, with any credentials removed.
    var displayName: String { get }
    /// What its caches are named by: the display name, and what else decides how records read (a sealed
    /// store's keys).
    var cacheName: String { get }

    /// What this store can do: read parallelism, rereads, how writes are made atomic, sweeping.
    var traits: StoreTraits { get }

    /// The records in the store, in any order (readers sort them).
    ///
    /// Contains every entry whose name ends in `.json` and does not start with `.`; temporary files and
    /// other names are never listed. Entries that are not regular files (symbolic links, folders) are
    /// listed, so that reading them reports why they are refused.
    /// - Throws: `StoreError.storeMissing` when the store does not exist; other cases when it
    ///   cannot be listed.
    func listRecords() throws -> [RecordInfo]
    /// `listRecords()` without examining records that a listing does not examine for free: for a
    /// reader with no earlier versions to compare (no parse cache yet), which reads every record and
    /// learns each one's version from the read (`RecordBuffer.examined`). A folder lists names alone
    /// (examining each record first was a tenth of a first run); a server's listing brings versions
    /// anyway (the default).
    func listRecordNames() throws -> [RecordInfo]

    /// What changes whenever a record name is added, removed or renamed: for a folder, the version of the
    /// folder itself (its times change with each entry). Nil when the store cannot tell with one cheap
    /// call, and then every listing reads all names (the default).
    func namesStamp() -> RecordVersion?

    /// `listRecords()` for `names`, taken from an earlier listing under the same `namesStamp()`: each
    /// record examined again, the names not read again. Sorted by name when `names` is.
    func listRecords(named names: [String]) throws -> [RecordInfo]

    /// The bytes of the record `name` (a name from `listRecords`).
    ///
    /// - Throws: `.recordTooLarge` without reading the content when it is over `maximumSize`;
    ///   `.recordMissing`, `.notARegularFile`, or another case when it cannot be read.
    func readRecord(named name: String, maximumSize: Int) throws -> Data

    /// Reads the record `name` into `buffer` (reused across calls by one reader) and returns how many
    /// bytes it holds. Same errors as `readRecord(named:maximumSize:)`; stores that can read into caller
    /// memory override the default, which copies what `readRecord` returns.
    func readRecord(named name: String, maximumSize: Int, into buffer: inout RecordBuffer) throws -> Int

    /// Atomically replaces the device's record with `data`, creating the store's own folder, collection
    /// or prefix when needed (never its parents, never a bucket): a reader sees the old record or the new
    /// one, never a mixture or nothing, and a failed write leaves the old record whole. Stores that need a
    /// rename for that are `StagingStore`s, whose default stages and commits; S3 puts once.
    func writeRecord(_ data: Data, for deviceID: DeviceID) throws

    /// Deletes the device's record. Deleting a record that does not exist is not an error.
    func removeRecord(for deviceID: DeviceID) throws

    /// The event claims kept beside the records (`EventClaims`); nil where the store keeps none.
    var claims: (any EventClaims)? { get }

    /// The folder `name` inside this store (`ledger`, and in it each device's), as a store of its own:
    /// its `.json` files are its records, written atomically as records are. Its first write makes its
    /// folder and the nested folders between, never the outer store's. Nil where a store has no folders.
    func nested(_ name: DeviceID) -> (any RecordStore)?
}

/// A store whose writes are atomic only through a temporary copy and a rename (a folder, WebDAV).
///
/// Writes are two-phase so that a crash can never leave a half-written record where readers look:
/// `stageRecord` puts the bytes under a temporary name that listings ignore, `commitRecord` atomically
/// replaces the record with them. `writeRecord` does both.
public protocol StagingStore: RecordStore {
    /// Writes `data` under a temporary name beside the device's record, creating the store's own folder
    /// or collection when it is missing (never its parents). The record itself is untouched.
    func stageRecord(_ data: Data, for deviceID: DeviceID) throws -> StagedRecord

    /// Atomically replaces the device's record with a staged one: a reader sees the old or the new record,
    /// never a mixture or nothing.
    func commitRecord(_ staged: StagedRecord) throws

    /// Removes a staged record that will not be committed. Never throws: it is cleanup after a failure.
    func discardRecord(_ staged: StagedRecord)

    /// Removes this device's temporary files older than `age` seconds: left behind by a publisher killed
    /// between staging and committing. Another device's files are never touched. Never throws: cleanup.
    /// Publish sweeps every time when `traits.sweepsCheaply`, else hourly.
    func removeLeftoverTemporaryFiles(of deviceID: DeviceID, olderThan age: TimeInterval, now: Date)
}

extension StagingStore {
    /// Stage, then commit; the stage is discarded when the commit fails.
    public func writeRecord(_ data: Data, for deviceID: DeviceID) throws {
        let staged = try stageRecord(data, for: deviceID)
        do {
            try commitRecord(staged)
        } catch {
            discardRecord(staged)
            throw error
        }
    }
}

extension RecordStore {
    public func nested(_ name: DeviceID) -> (any RecordStore)? { nil }
    public func namesStamp() -> RecordVersion? { nil }
    public var cacheName: String { displayName }

    public func listRecordNames() throws -> [RecordInfo] { try listRecords() }

    /// The records sorted by name: each one examined (`listRecords`), or for a reader with no versions
    /// to compare them with, only as far as the listing examines them for free (`listRecordNames`).
    public func sortedListing(examining: Bool) throws -> [RecordInfo] {
        try (examining ? listRecords() : listRecordNames()).sortedByName()
    }

    public func listRecords(named names: [String]) throws -> [RecordInfo] {
        let wanted = Set(names)
        return try listRecords().filter { wanted.contains($0.name) }.sortedByName()
    }

    public func readRecord(named name: String, maximumSize: Int, into buffer: inout RecordBuffer) throws -> Int {
        buffer.examined = nil
        let data = try readRecord(named: name, maximumSize: maximumSize)
        buffer.reserve(data.count)
        data.withUnsafeBytes { buffer.bytes.copyMemory(from: $0) }
        return data.count
    }

    /// Reads a record with the product's size limit.
    public func readRecord(named name: String) throws -> Data {
        try readRecord(named: name, maximumSize: RecordCodec.maximumRecordSize)
    }
}

/// A record as a store lists it.
public struct RecordInfo: Sendable, Equatable {
    /// The file name, `<deviceID>.json` for well-named records.
    public var name: String
    /// Size in bytes, when the store knows it without reading.
    public var size: Int64?
    public var modified: Date?
    /// What changes whenever the content may have: what the parse cache trusts. Nil when the store cannot
    /// tell, and then the record is always read.
    public var version: RecordVersion?

    public init(name: String, size: Int64? = nil, modified: Date? = nil, version: RecordVersion? = nil) {
        self.name = name
        self.size = size
        self.modified = modified
        self.version = version
    }

    /// Identifies a listing: every record's name and version. Nil when a record has no version, since
    /// then sameness cannot be told.
    public static func fingerprint(of listing: [RecordInfo]) -> UInt64? {
        var out = BinaryWriter(capacity: 64 + listing.count * 64)
        for info in listing.sortedByName() {
            guard let version = info.version else { return nil }
            out.string(info.name)
            out.version(version)
        }
        return out.checksum
    }

    /// Whether a name denotes a record: ends in `.json` and is not hidden (in-flight temporary files are).
    public static func isRecordName(_ name: String) -> Bool {
        // Bytes, not characters: String's hasSuffix compares grapheme clusters, slow over a big folder.
        var name = name
        return name.withUTF8 { isRecordName(UnsafeRawBufferPointer($0)) }
    }

    /// `isRecordName` of a name's bytes, before any String is made (a folder's entries, a memo's names).
    public static func isRecordName(_ name: UnsafeRawBufferPointer) -> Bool {
        name.count > 5 && name[0] != UInt8(ascii: ".")
            && memcmp(name.baseAddress! + name.count - 5, ".json", 5) == 0 && !isConflictCopy(name)
    }

    /// A sync tool's copy of a record it could not reconcile (Syncthing `box.sync-conflict-<date>-<id>.json`,
    /// Dropbox and Nextcloud `box (conflicted copy ...).json`): the losing side of two writes, older than
    /// the record beside it, and not a record of its own. Left out of listings: warned about on every run,
    /// it filled a cron mailbox with one line a minute.
    public static func isConflictCopy(_ name: UnsafeRawBufferPointer) -> Bool {
        ByteSearch.contains(name, ".sync-conflict-") || ByteSearch.contains(name, "conflicted copy")
    }
}

/// The identity of one state of a record's file, compared for equality only.
public enum RecordVersion: Hashable, Sendable {
    /// A file: size, modification and change times in nanoseconds, and inode. A rename-based rewrite
    /// changes the inode, an in-place one the times; restoring a modification time changes the change time.
    case file(size: Int64, modified: Int64, changed: Int64, inode: UInt64)
    /// A server's entity tag (WebDAV, S3), made opaque by `entityTag(_:)`.
    case tag(String)

    /// An entity tag as an opaque version: the white space around it, a weak prefix and its quotes removed
    /// (Apache marks a file changed within the last second `W/` and drops the mark later, for the same
    /// content; S3 quotes its tags, and some servers escape those quotes in listings). Bytes, not
    /// Unicode-aware trimming: this runs for every record of every listing.
    public static func entityTag(_ etag: String) -> RecordVersion {
        var bytes = etag.utf8[...].trimmingASCIIWhitespace()
        if bytes.starts(with: "W/".utf8) || bytes.starts(with: "w/".utf8) { bytes = bytes.dropFirst(2) }
        while bytes.first == UInt8(ascii: "\"") { bytes = bytes.dropFirst() }
        while bytes.last == UInt8(ascii: "\"") { bytes = bytes.dropLast() }
        return .tag(String(bytes) ?? etag)
    }
}

/// Bytes written under a temporary name, waiting for `commitRecord`.
public struct StagedRecord: Sendable, Equatable {
    public var deviceID: DeviceID
    /// The temporary name within the store; always starts with `.`, so listings skip it.
    public var temporaryName: String
    /// What was staged: a commit whose outcome is unknown (its answer was lost) compares the record with
    /// it before deciding whether to try again.
    public var contents: Data

    public init(deviceID: DeviceID, temporaryName: String, contents: Data = Data()) {
        self.deviceID = deviceID
        self.temporaryName = temporaryName
        self.contents = contents
    }

    /// A fresh temporary name for `deviceID`: hidden, unique per process and attempt.
    public static func temporaryName(for deviceID: DeviceID) -> String {
        let random = UInt64.random(in: 0...UInt64.max)
        let hex = String(random, radix: 16)
        return ".\(deviceID.rawValue).json.\(ProcessInfo.processInfo.processIdentifier).\(hex).tmp"
    }
}

extension Array where Element == RecordInfo {
    /// Sorted by name in byte order; the array itself when it already is (checking is cheaper than
    /// sorting again, which copies every entry).
    public func sortedByName() -> [RecordInfo] {
        // Through the buffer: only each name is read, not each whole record info copied twice.
        let inOrder = withUnsafeBufferPointer { infos in
            infos.indices.dropFirst().allSatisfy { ByteOrder.precedes(infos[$0 - 1].name, infos[$0].name) }
        }
        return inOrder ? self : sorted { ByteOrder.precedes($0.name, $1.name) }
    }
}
