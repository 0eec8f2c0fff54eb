import Portable

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Event claims in a folder store: `<store>/alerts/<name>`, created with `O_CREAT | O_EXCL` (atomic on a
/// local disk and on NFS v3 and later), never following a link.
///
/// A folder a sync tool keeps (Syncthing's `.stfolder`, Dropbox's `.dropbox`, Nextcloud's `.sync_*.db`,
/// in the store or a folder above it) gives each machine a copy of its own, where an exclusive create
/// proves nothing: such claims are not exclusive, and `check` falls back to the rule that picks one
/// sender (docs/alerts.md).
struct DirectoryClaims: EventClaims {
    let folder: String
    let isExclusive: Bool

    init(store: String) {
        folder = store + "/alerts"
        isExclusive = !Self.isSynced(store)
    }

    func create(_ name: ClaimName, data: Data) throws -> Bool {
        if mkdir(folder, 0o755) != 0, errno != EEXIST { throw claimError(errno, "create the claims folder") }
        let path = folder + "/" + name.rawValue
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        if descriptor < 0 {
            if errno == EEXIST { return false }
            throw claimError(errno, "claim \(name)")
        }
        defer { close(descriptor) }
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        // The claim is made by its creation; what it says is for people and for taking over a stale one.
        if written != data.count { throw claimError(errno, "write claim \(name)") }
        fsync(descriptor)
        return true
    }

    func replace(_ name: ClaimName, data: Data) throws {
        if mkdir(folder, 0o755) != 0, errno != EEXIST { throw claimError(errno, "create the claims folder") }
        do {
            try AtomicFile.writePrivate(data, to: folder + "/" + name.rawValue)
        } catch {
            throw StoreError.failed(operation: "write claim", target: name.rawValue, reason: "\(error)")
        }
    }

    func names() throws -> [ClaimName] {
        guard let directory = opendir(folder) else {
            if errno == ENOENT { return [] }
            throw claimError(errno, "list the claims")
        }
        defer { closedir(directory) }
        var found: [ClaimName] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if let claim = ClaimName(name) { found.append(claim) }
        }
        return found
    }

    func read(_ name: ClaimName) throws -> (data: Data, modified: Date)? {
        let path = folder + "/" + name.rawValue
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw claimError(errno, "read claim \(name)")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG, info.st_size <= 4096 else {
            throw StoreError.failed(
                operation: "read claim", target: name.rawValue, reason: "it is not a small regular file")
        }
        return (FileSystem.contents(of: path) ?? Data(), Self.modified(info))
    }

    private static func modified(_ info: stat) -> Date {
        #if canImport(Glibc)
            Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
        #else
            Date(timeIntervalSince1970: Double(info.st_mtimespec.tv_sec) + Double(info.st_mtimespec.tv_nsec) / 1e9)
        #endif
    }

    func removeClaims(olderThan date: Date) {
        for claim in (try? names()) ?? [] {
            let path = folder + "/" + claim.rawValue
            var info = stat()
            guard lstat(path, &info) == 0, Self.modified(info) < date else { continue }
            unlink(path)
        }
    }

    private func claimError(_ code: Int32, _ what: String) -> StoreError {
        .failed(operation: what, target: folder, reason: String(cString: strerror(code)).lowercased())
    }

    /// Whether a sync tool keeps `store` (its marker in the folder or one above it).
    static func isSynced(_ store: String) -> Bool {
        // Where the folder really is: a link to a synced folder is synced.
        var folder = store
        if let resolved = realpath(store, nil) {
            folder = String(cString: resolved)
            free(resolved)
        }
        for _ in 0..<12 {
            for marker in [".stfolder", ".dropbox", ".dropbox.cache"] where FileSystem.exists(folder + "/" + marker) {
                return true
            }
            if let entries = try? FileManager.default.contentsOfDirectory(atPath: folder),
                entries.contains(where: { $0.hasPrefix(".sync_") && $0.hasSuffix(".db") })
            {
                return true
            }
            let parent = FileSystem.parent(of: folder)
            if parent.isEmpty || parent == folder { break }
            folder = parent
        }
        return false
    }
}

extension DirectoryStore {
    public var claims: (any EventClaims)? { DirectoryClaims(store: path) }
}
