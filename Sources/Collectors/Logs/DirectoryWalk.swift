#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The files below a folder whose names match, found with `opendir`/`readdir`.
///
/// Foundation's directory enumerator made 89 % of the instructions of a `publish --source codex` with
/// nothing new (it builds URL and attribute objects per entry); the collectors need only names. Folders
/// are entered, never through a symbolic link. Of the other entries whose name matches, only regular
/// files are listed, a link followed to one too (a linked log file is read like the enumerator read it):
/// a FIFO named like a log once hung `publish` on its open, and a device or socket is no log either.
/// A folder that cannot be opened is passed over.
enum DirectoryWalk {
    /// The matching files below each of `roots`, in no particular order (the order `readdir` gives):
    /// a run with nothing new only fingerprints them, which needs no order (`LogScanMemo`), and the
    /// files that are read are sorted there (`LogScanState.partials`). Sorting 2000 paths was a quarter
    /// of such a run.
    ///
    /// Each file's identity is taken on the way, relative to its open folder (`fstatat`): a `stat` of
    /// the whole path later resolved every folder of it again, for each of thousands of files.
    static func files(under roots: [String], where matches: (String) -> Bool) -> [Found] {
        var found: [Found] = []
        for root in roots { walk(root, where: matches, into: &found) }
        return found
    }

    /// A file the walk found, and its identity then (nil when it could not be examined: a dangling link).
    struct Found {
        var path: String
        var identity: FileIdentity?
    }

    private static func walk(_ root: String, where matches: (String) -> Bool, into found: inout [Found]) {
        var pending = [root]
        while let folder = pending.popLast() {
            guard let directory = opendir(folder) else { continue }
            defer { closedir(directory) }
            while let entry = readdir(directory) {
                let name = withUnsafePointer(to: entry.pointee.d_name) {
                    $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
                }
                if name == "." || name == ".." { continue }
                let path = folder + "/" + name
                var isFolder = Int32(entry.pointee.d_type) == Int32(DT_DIR)
                if Int32(entry.pointee.d_type) == Int32(DT_UNKNOWN) {
                    // Some file systems do not say: ask, without following a link.
                    var info = stat()
                    isFolder = lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
                }
                if isFolder {
                    pending.append(path)
                } else if matches(name) {
                    // Following a link, as `stat` of the path did. A dangling link is listed without an
                    // identity, so that reading it says why it cannot be read.
                    var info = stat()
                    let known = fstatat(dirfd(directory), name, &info, 0) == 0
                    if known && (info.st_mode & S_IFMT) != S_IFREG { continue }
                    found.append(Found(path: path, identity: known ? fileIdentity(info) : nil))
                }
            }
        }
    }
}
