import Portable
import Snapshots

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A store that is a folder: local disk, NFS, or a folder kept in sync by Syncthing or Dropbox.
///
/// Writes are atomic and durable: the record is written to a hidden temporary file in the same folder,
/// flushed with `fsync`, renamed over the record, and the folder is synced so the rename survives a power
/// cut. Symbolic links inside the store are never followed (a record that is a link is refused), so a
/// shared folder cannot make a reader open files elsewhere. The store folder itself may be a link.
public struct DirectoryStore: StagingStore {
    public let path: String
    /// The folder, opened once: records are opened and examined relative to it, by name, instead of
    /// walking the whole path for each of thousands of files.
    private let folder: FolderHandle
    /// For a store nested in another (`nested(_:)`): the folders between the outer store and this one,
    /// outermost first, made when missing and, like this one, never links.
    private let parents: [String]
    private let isNested: Bool

    public init(path: String) {
        self.init(path: path, parents: [], isNested: false)
    }

    private init(path: String, parents: [String], isNested: Bool) {
        // A trailing slash would double up in joined paths and messages.
        var path = path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        self.path = path
        self.parents = parents
        self.isNested = isNested
        folder = FolderHandle(path: path, followsLink: !isNested)
    }

    /// The folder `name` inside this store, as a store: the store folder may be a link, folders inside it
    /// may not (another machine with write access could point one anywhere).
    public func nested(_ name: DeviceID) -> (any RecordStore)? {
        DirectoryStore(path: path + "/" + name.rawValue, parents: isNested ? parents + [path] : [], isNested: true)
    }

    /// Throws when a nested store's folder, or one between it and the outer store, is a link or not a folder.
    private func refuseLinks() throws {
        guard isNested else { return }
        for folder in parents + [path] {
            var info = stat()
            guard lstat(folder, &info) == 0 else { continue }
            guard (info.st_mode & S_IFMT) == S_IFDIR else { throw StoreError.notAStore(store: folder) }
        }
    }

    public var displayName: String { path }

    public func listRecords() throws -> [RecordInfo] {
        infos(of: try sortedRecordNames())
    }

    public func listRecordNames() throws -> [RecordInfo] {
        try sortedRecordNames().map { RecordInfo(name: $0) }
    }

    private func sortedRecordNames() throws -> [String] {
        try refuseLinks()
        folder.followPath()
        let unordered = try entryNames(recordsOnly: true)
        // Sorted here, by index (moving integers, not strings), so the listing arrives in the order
        // every reader wants and their checks find nothing to do.
        return ByteOrder.sortedIndices(unordered).map { unordered[$0] }
    }

    /// The folder's own version, through the path as listings open it (the store folder may be a link):
    /// creating, removing or renaming an entry changes its modification and change times, and a folder
    /// put in its place has another inode.
    public func namesStamp() -> RecordVersion? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return nil }
        return version(of: info)
    }

    public func listRecords(named names: [String]) throws -> [RecordInfo] {
        folder.followPath()
        return infos(of: names)
    }

    /// Each record of `names` examined, in order.
    private func infos(of names: [String]) -> [RecordInfo] {
        // One lstat per record, on every core: on a large store the listing is mostly these calls. From
        // 256 records on (a thousand on two cores took 7 % off a warm run). Each core places its record
        // infos straight into the listing: gathering slices afterwards copied each one again, a
        // millisecond at 10000 records.
        let pieces = Parallel.evenPieces(names.count, minimumPerWorker: 128)
        return try! Parallel.makeArray(count: names.count, pieces: pieces) { piece, emit in
            for name in names[pieces[piece]] {
                var info = stat()
                emit(examine(name, &info) == 0 ? recordInfo(name, info) : RecordInfo(name: name))
            }
        }
    }

    public func readRecord(named name: String, maximumSize: Int) throws -> Data {
        var buffer = RecordBuffer(capacity: 4096)
        defer { buffer.deallocate() }
        let count = try readRecord(named: name, maximumSize: maximumSize, into: &buffer)
        return Data(UnsafeRawBufferPointer(rebasing: buffer.bytes[0..<count]))
    }

    public func readRecord(named name: String, maximumSize: Int, into buffer: inout RecordBuffer) throws -> Int {
        buffer.examined = nil
        guard !name.utf8.contains(UInt8(ascii: "/")) else { throw StoreError.recordMissing(name: name) }
        // O_NOFOLLOW refuses links; O_NONBLOCK keeps a FIFO named like a record from hanging the read.
        let descriptor = openInStore(name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            // A socket cannot be opened at all (ENXIO, "no such device or address"): it is no record file.
            if code == ELOOP || code == EMLINK || code == ENXIO || code == EOPNOTSUPP {
                throw StoreError.notARegularFile(name: name)
            }
            if code == ENOENT { throw StoreError.recordMissing(name: name) }
            throw recordError(code, name: name)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw recordError(errno, name: name) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw StoreError.notARegularFile(name: name) }
        buffer.examined = recordInfo(name, info)
        guard info.st_size <= maximumSize else {
            throw StoreError.recordTooLarge(name: name, size: Int64(info.st_size), limit: maximumSize)
        }
        // Read to end of file rather than trusting st_size: the file may grow or shrink while it is read
        // (a publisher on another machine, a sync client), and the limit must hold for what is read.
        buffer.reserve(Int(info.st_size) + 1)
        var filled = 0
        while true {
            if filled == buffer.bytes.count {
                guard filled <= maximumSize else {
                    throw StoreError.recordTooLarge(name: name, size: Int64(filled), limit: maximumSize)
                }
                buffer.grow(to: min(filled * 2, maximumSize + 1), keeping: filled)
            }
            let wanted = buffer.bytes.count - filled
            let count = read(descriptor, buffer.bytes.baseAddress! + filled, wanted)
            if count < 0 {
                if errno == EINTR { continue }
                throw recordError(errno, name: name)
            }
            if count == 0 { break }
            filled += count
            // A short read of a regular file that delivered exactly the size fstat reported is the end:
            // no further read call just to see zero bytes.
            if count < wanted && filled == Int(info.st_size) { break }
        }
        return filled
    }

    public func stageRecord(_ data: Data, for deviceID: DeviceID) throws -> StagedRecord {
        try createIfMissing()
        let staged = StagedRecord(deviceID: deviceID, temporaryName: StagedRecord.temporaryName(for: deviceID))
        let descriptor = open(join(staged.temporaryName), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw storeError(errno, operation: "write to") }
        var failure = data.withUnsafeBytes { Descriptor.writeAll(descriptor, $0) }
        if failure == 0 && fsync(descriptor) != 0 { failure = errno }
        if close(descriptor) != 0 && failure == 0 { failure = errno }
        if failure != 0 {
            discardRecord(staged)
            throw storeError(failure, operation: "write to")
        }
        return staged
    }

    public func commitRecord(_ staged: StagedRecord) throws {
        guard rename(join(staged.temporaryName), join(staged.deviceID.recordName)) == 0 else {
            throw storeError(errno, operation: "write to")
        }
        syncFolder()
    }

    public func discardRecord(_ staged: StagedRecord) {
        unlink(join(staged.temporaryName))
    }

    public func removeRecord(for deviceID: DeviceID) throws {
        if unlink(join(deviceID.recordName)) != 0 && errno != ENOENT {
            throw storeError(errno, operation: "remove a record from")
        }
        syncFolder()
    }

    /// A rename is atomic for readers, so nothing is read twice; reads use every core.
    public var traits: StoreTraits { StoreTraits() }

    /// Removes this device's temporary files older than `age` seconds: left behind by a publisher that was
    /// killed between writing and renaming. Another device's files are never touched.
    public func removeLeftoverTemporaryFiles(of deviceID: DeviceID, olderThan age: TimeInterval, now: Date) {
        let prefix = "." + deviceID.recordName + "."
        for name in (try? entryNames()) ?? [] {
            guard name.hasPrefix(prefix), name.hasSuffix(".tmp") else { continue }
            var info = stat()
            guard lstat(join(name), &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
                now.timeIntervalSince(modificationDate(of: info)) > age
            else { continue }
            unlink(join(name))
        }
    }

    /// The names in the store folder, `.` and `..` excluded; with `recordsOnly`, only record names,
    /// judged on the raw bytes before any String is made (hidden files are most of what is skipped).
    private func entryNames(recordsOnly: Bool = false) throws -> [String] {
        guard let directory = opendir(path) else {
            throw storeError(errno, operation: "list")
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name: String? = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: UInt8.self, capacity: Int(NAME_MAX) + 1) { bytes in
                    let length = strlen(UnsafeRawPointer(bytes).assumingMemoryBound(to: CChar.self))
                    guard length > 0 else { return nil }
                    if recordsOnly {
                        guard RecordInfo.isRecordName(UnsafeRawBufferPointer(start: bytes, count: length)) else {
                            return nil
                        }
                    } else if (length == 1 && bytes[0] == UInt8(ascii: "."))
                        || (length == 2 && bytes[0] == UInt8(ascii: ".") && bytes[1] == UInt8(ascii: "."))
                    {
                        return nil
                    }
                    return String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
                }
            }
            if let name { names.append(name) }
        }
        return names
    }

    /// Opens `name` inside the store (relative to the folder when it is open).
    private func openInStore(_ name: String, _ flags: Int32) -> Int32 {
        let directory = folder.descriptor()
        #if canImport(Glibc)
            return directory >= 0 ? Glibc.openat(directory, name, flags) : Glibc.open(join(name), flags)
        #else
            return directory >= 0 ? Darwin.openat(directory, name, flags) : Darwin.open(join(name), flags)
        #endif
    }

    /// `lstat` of `name` inside the store: links are examined, never followed.
    private func examine(_ name: String, _ info: inout stat) -> Int32 {
        let directory = folder.descriptor()
        return directory >= 0 ? fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) : lstat(join(name), &info)
    }

    private func createIfMissing() throws {
        try refuseLinks()
        if !parents.isEmpty, access(path, F_OK) != 0 {
            for parent in parents where mkdir(parent, 0o755) != 0 && errno != EEXIST {
                throw storeError(errno, operation: "create")
            }
            try refuseLinks()
        }
        if mkdir(path, 0o755) == 0 {
            syncParent()
            return
        }
        let code = errno
        if code == EEXIST {
            var info = stat()
            guard (isNested ? lstat(path, &info) : stat(path, &info)) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                throw StoreError.notAStore(store: path)
            }
            return
        }
        if code == ENOENT { throw StoreError.parentMissing(store: path) }
        throw storeError(code, operation: "create")
    }

    private func syncFolder() {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    private func syncParent() {
        let parent = FileSystem.parent(of: path)
        let descriptor = open(parent.isEmpty ? "." : parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    private func join(_ name: String) -> String {
        path == "/" ? "/" + name : path + "/" + name
    }

    /// What a listing says of a record examined with `info`.
    private func recordInfo(_ name: String, _ info: stat) -> RecordInfo {
        RecordInfo(
            name: name, size: Int64(info.st_size), modified: modificationDate(of: info), version: version(of: info))
    }

    private func version(of info: stat) -> RecordVersion {
        #if canImport(Darwin)
            let modified = info.st_mtimespec
            let changed = info.st_ctimespec
        #else
            let modified = info.st_mtim
            let changed = info.st_ctim
        #endif
        return .file(
            size: Int64(info.st_size), modified: Int64(modified.tv_sec) * 1_000_000_000 + Int64(modified.tv_nsec),
            changed: Int64(changed.tv_sec) * 1_000_000_000 + Int64(changed.tv_nsec), inode: UInt64(info.st_ino))
    }

    private func modificationDate(of info: stat) -> Date {
        #if canImport(Darwin)
            let time = info.st_mtimespec
        #else
            let time = info.st_mtim
        #endif
        return Date(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1e9)
    }

    private func storeError(_ code: Int32, operation: String) -> StoreError {
        switch code {
        case ENOENT: return .storeMissing(store: path)
        case ENOTDIR: return .notAStore(store: path)
        case EACCES, EPERM: return .permissionDenied(store: path, detail: "")
        default: return .failed(operation: "\(operation) store", target: path, reason: describe(code))
        }
    }

    private func recordError(_ code: Int32, name: String) -> StoreError {
        switch code {
        case EACCES, EPERM: return .failed(operation: "read", target: name, reason: "permission denied")
        default: return .failed(operation: "read", target: name, reason: describe(code))
        }
    }

    private func describe(_ code: Int32) -> String {
        String(cString: strerror(code)).lowercased()
    }
}

/// A store folder's descriptor, opened on first use and kept until the store is released. Not opened
/// while the folder is missing (a later call tries again, after `publish` created it).
private final class FolderHandle: @unchecked Sendable {
    let path: String
    private let followsLink: Bool
    private let lock = Lock()
    private var opened: Int32 = -1

    init(path: String, followsLink: Bool) {
        self.path = path
        self.followsLink = followsLink
    }

    deinit {
        if opened >= 0 { close(opened) }
    }

    func descriptor() -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        if opened < 0 { opened = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (followsLink ? 0 : O_NOFOLLOW)) }
        return opened
    }

    /// Closes the descriptor when the path now names another folder (the store folder removed and made
    /// again, a share mounted anew), so that the next use opens the folder the path names: a `watch`
    /// running for days lists by path, and must examine and read in the same folder. Called once per
    /// listing, before anything uses the descriptor.
    func followPath() {
        lock.lock()
        defer { lock.unlock() }
        guard opened >= 0 else { return }
        var named = stat()
        var held = stat()
        let same =
            stat(path, &named) == 0 && fstat(opened, &held) == 0 && named.st_dev == held.st_dev
            && named.st_ino == held.st_ino
        if !same {
            close(opened)
            opened = -1
        }
    }
}
