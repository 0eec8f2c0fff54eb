import Foundation

/// A fresh folder under the system temporary directory, removed when the value is released.
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String

    public init(_ label: String = "aggctl-test") {
        let base = NSTemporaryDirectory().hasSuffix("/") ? NSTemporaryDirectory() : NSTemporaryDirectory() + "/"
        let template = base + label + ".XXXXXX"
        var bytes = Array(template.utf8CString)
        let made = bytes.withUnsafeMutableBufferPointer { buffer in
            mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
        }
        guard let made else { preconditionFailure("cannot create a temporary directory under \(base)") }
        path = made
    }

    /// A folder for the whole test process, for what a static holds (a static's deinit never runs, and
    /// its folder was left behind by every test run): a small shell removes it once this process has
    /// gone, however it ended.
    public static func lastingThisProcess(_ label: String) throws -> TemporaryDirectory {
        let folder = TemporaryDirectory(label)
        let reaper = "while kill -0 \"$1\" 2>/dev/null; do sleep 0.2; done; rm -rf -- \"$2\""
        _ = try SpawnedProcess(
            ["/bin/sh", "-c", reaper, "reaper", String(getpid()), folder.path], output: "/dev/null")
        return folder
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// `path/name`.
    public func file(_ name: String) -> String {
        path + "/" + name
    }

    /// Writes `text` to `name` inside the folder, creating intermediate folders.
    @discardableResult
    public func write(_ name: String, _ text: String) throws -> String {
        try write(name, Data(text.utf8))
    }

    @discardableResult
    public func write(_ name: String, _ data: Data) throws -> String {
        let target = file(name)
        try FileManager.default.createDirectory(
            atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: target))
        return target
    }

    /// Appends `text` to the file at `path` (anywhere), as a program writing a log does.
    public static func append(_ text: String, to path: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
    }

    /// Writes an executable script at `name`. Its descriptor is close-on-exec, so that a process another
    /// test starts at the same moment cannot inherit it and make running the script fail ("text file busy").
    @discardableResult
    public func writeExecutable(_ name: String, _ text: String) throws -> String {
        let target = file(name)
        let descriptor = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
        defer { close(descriptor) }
        var text = text
        let written = text.withUTF8 { Foundation.write(descriptor, $0.baseAddress, $0.count) }
        guard written == text.utf8.count else { throw CocoaError(.fileWriteUnknown) }
        return target
    }

    /// Names of the entries in `subfolder` (or the folder itself), sorted, hidden ones included.
    public func entries(_ subfolder: String? = nil) -> [String] {
        let target = subfolder.map(file) ?? path
        return ((try? FileManager.default.contentsOfDirectory(atPath: target)) ?? []).sorted()
    }
}
