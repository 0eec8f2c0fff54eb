import Portable
import Snapshots

/// Folders: a plain path, or a `file://` URL of this machine.
public struct DirectoryBackend: StoreBackend {
    public static let name = "folder"
    public var name: String { Self.name }
    public var schemes: [String] { ["file"] }
    public var takesPaths: Bool { true }

    public init() {}

    /// - Throws: `ParseError` for a `file://` URL naming another host, or one without a path.
    public func parse(_ text: String) throws(StoreLocation.ParseError) -> StoreLocation {
        guard StoreRegistry.scheme(of: text) == "file" else { return .directory(path: text) }
        let url = try StoreLocation.checkedURL(text)
        let host = (url.host ?? "").lowercased()
        guard host.isEmpty || host == "localhost" else {
            throw StoreLocation.ParseError(
                reason: "names another machine ('\(host)'); a file:// store must be on this one")
        }
        guard !url.path.isEmpty else { throw StoreLocation.ParseError(reason: "has no path") }
        return .directory(path: url.path)
    }

    public func open(_ location: StoreLocation, context: StoreContext) throws -> any RecordStore {
        DirectoryStore(path: try Self.path(of: location))
    }

    public func diagnosis(of location: StoreLocation, context: StoreContext) -> any StoreDiagnosis {
        FolderDiagnosis(path: location.address)
    }

    static func path(of location: StoreLocation) throws -> String {
        guard case .folder(let path) = location.target else {
            throw StoreError.failed(operation: "open", target: location.displayName, reason: "not a folder")
        }
        return path
    }
}

/// `doctor` for a folder: that it (or its parent) exists, and the clock by a probe's file time.
struct FolderDiagnosis: StoreDiagnosis {
    var path: String

    func checkAccess(report: (StoreFinding) -> Void) throws -> Bool {
        if let isFolder = FileSystem.isFolder(path) {
            guard isFolder else {
                report(
                    StoreFinding(
                        check: "folder", outcome: .failed, detail: "'\(path)' is not a folder",
                        fix: "point --store at a folder"))
                return false
            }
            report(StoreFinding(check: "folder", outcome: .ok, detail: "exists"))
            return true
        }
        let parent = FileSystem.parent(of: path)
        guard FileManager.default.fileExists(atPath: parent.isEmpty ? "." : parent) else {
            report(
                StoreFinding(
                    check: "folder", outcome: .failed, detail: "neither '\(path)' nor its parent exists",
                    fix: "create '\(parent)' (or mount the shared folder) first"))
            return false
        }
        return true  // the listing says it does not exist yet
    }

    /// A shared folder's file times are the file server's clock (NFS) or this machine's.
    func checkAfterProbe(writtenAt: Date, report: (StoreFinding) -> Void) {
        guard let modified = try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
        else { return }
        report(StoreFinding.clock(offset: writtenAt.timeIntervalSince(modified), against: "the folder's file times"))
    }
}
