import Foundation
import TestSupport
import Testing

/// `--out` of `report` and `export` through the binary: only a missing path or a regular file is
/// replaced; a device, a FIFO, a socket, a folder and links to them are refused with exit 2 and left as
/// they were. Run as root in CI, where a rename over a device node succeeds.
struct OutTargetEndToEndTests {
    let root = TemporaryDirectory("aggctl-out")
    var environment: [String: String] {
        ["HOME": root.file("home"), "XDG_STATE_HOME": root.file("state"), "PATH": "/usr/bin:/bin"]
    }
    static let isRoot = getuid() == 0
    static let commands: [[String]] = [
        ["report", "--store", Repository.path("Examples/store"), "--now", "2026-11-30T12:00:00Z"],
        [
            "export", "--store", Repository.path("Examples/store"), "--format", "prometheus", "--now",
            "2026-11-30T12:00:00Z",
        ],
    ]

    func run(_ command: [String], out: String) throws -> BinaryRun {
        try BinaryRun.run(command + ["--out", out], environment: environment)
    }

    /// The kind and identity of what is at `path`, not following a link: what must not change.
    func identity(_ path: String) -> String {
        var info = stat()
        guard lstat(path, &info) == 0 else { return "missing" }
        return "\(info.st_mode) \(info.st_ino) \(info.st_rdev) \(info.st_size)"
    }

    @Test(
        "a FIFO, a folder, a socket and links to them or to nothing are refused and left as they were",
        arguments: commands)
    func refused(_ command: [String]) throws {
        let fifo = root.file("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let folder = root.file("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root.file("to-fifo"), withDestinationPath: fifo)
        try FileManager.default.createSymbolicLink(
            atPath: root.file("to-nothing"), withDestinationPath: root.file("none"))
        try FileManager.default.createSymbolicLink(atPath: root.file("to-null"), withDestinationPath: "/dev/null")
        let socket = root.file("sock")
        let listener = try UnixSocket(path: socket)
        defer { listener.close() }

        let cases: [(String, String)] = [
            (fifo, "is a FIFO"), (folder, "is a folder"), (socket, "is a socket"),
            (root.file("to-fifo"), "is a symbolic link to a FIFO"),
            (root.file("to-nothing"), "is a symbolic link to nothing"),
            (root.file("to-null"), "is a symbolic link to a device"),
            ("/dev/stdout", "is a symbolic link to"),
        ]
        for (path, reason) in cases {
            let before = identity(path)
            let result = try run(command, out: path)
            #expect(result.status == 2, "\(path): \(result.errors)")
            #expect(result.errors.contains("--out: '\(path)' \(reason)"), "\(result.errors)")
            #expect(result.errors.split(separator: "\n").count <= 2, "\(result.errors)")
            #expect(identity(path) == before, "\(path) was changed")
            #expect(identity(root.file("none")) == "missing")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test(
        "a private device node is refused and left a device, run as root",
        .enabled(if: isRoot, "mknod needs root"), arguments: commands)
    func device(_ command: [String]) throws {
        let node = root.file("null-copy")
        // The same device as /dev/null (1, 3), under the test's own folder.
        #expect(mknod(node, S_IFCHR | 0o666, dev_t((1 << 8) | 3)) == 0, "mknod: \(String(cString: strerror(errno)))")
        let before = identity(node)
        let result = try run(command, out: node)
        #expect(result.status == 2, "\(result.errors)")
        #expect(result.errors.contains("is a device"), "\(result.errors)")
        #expect(identity(node) == before)
        let listing = try FileManager.default.contentsOfDirectory(atPath: root.path)
        #expect(!listing.contains { $0.hasSuffix(".tmp") }, "\(listing)")
    }

    @Test(
        "- is stdout; a new path, a regular file and a link to one are written, the link kept",
        arguments: commands)
    func written(_ command: [String]) throws {
        let toStdout = try run(command, out: "-")
        #expect(toStdout.status == 0, "\(toStdout.errors)")
        #expect(toStdout.output.contains("aggctl_") || toStdout.output.contains("<html"))
        #expect(!FileManager.default.fileExists(atPath: "-"))

        let fresh = root.file("fresh.out")
        #expect(try run(command, out: fresh).status == 0)
        let written = try String(contentsOfFile: fresh, encoding: .utf8)
        #expect(written == toStdout.output)

        let target = root.file("target.out")
        try "old".write(toFile: target, atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: root.file("link.out"), withDestinationPath: target)
        let linked = try run(command, out: root.file("link.out"))
        #expect(linked.status == 0, "\(linked.errors)")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == toStdout.output)
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: root.file("link.out")) == target,
            "the link itself stays a link")
    }
}
