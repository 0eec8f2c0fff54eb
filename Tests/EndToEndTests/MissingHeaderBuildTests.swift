import Foundation
import TestSupport
import Testing

/// A build on a machine without a system library's header fails, saying what to install: it never makes
/// a binary that lacks the feature. Each case builds the one C target from a clean scratch path, as a
/// release build does, with the system's include folders replaced by copies (links) lacking the header.
#if os(Linux)
    struct MissingHeaderBuildTests {
        let root = TemporaryDirectory("aggctl-headers")

        /// `/usr/include` and its multiarch folder as links, but for `hidden` (a file or folder name).
        func includeFolders(hiding hidden: String?) throws -> [String] {
            let manager = FileManager.default
            let multiarch = try manager.contentsOfDirectory(atPath: "/usr/include").filter {
                $0.hasSuffix("-linux-gnu")
            }
            var folders: [String] = []
            let sources = [("/usr/include", "include")] + multiarch.map { ("/usr/include/\($0)", $0) }
            for (source, target) in sources {
                let folder = root.file(target)
                try manager.createDirectory(atPath: folder, withIntermediateDirectories: true)
                for name in try manager.contentsOfDirectory(atPath: source)
                where name != hidden && !multiarch.contains(name) {
                    try manager.createSymbolicLink(
                        atPath: folder + "/" + name, withDestinationPath: source + "/" + name)
                }
                folders.append(folder)
            }
            return folders
        }

        func build(_ target: String, hiding hidden: String?) throws -> BinaryRun {
            let folders = try includeFolders(hiding: hidden)
            // Multiarch first, as the compiler searches them.
            let includes = folders.reversed().flatMap { ["-Xcc", "-isystem", "-Xcc", $0] }
            return try BinaryRun.run(
                [
                    "swift", "build", "-c", "release", "--target", target, "--scratch-path", root.file("scratch"),
                    "--package-path", Repository.path("."), "-Xcc", "-nostdlibinc",
                ] + includes,
                environment: ProcessInfo.processInfo.environment, executable: "/usr/bin/env", timeout: 600)
        }

        @Test(
            "without microhttpd.h or curl/curl.h the build fails with the package to install; with it, it builds",
            arguments: [
                ("CMicroHTTPD", "microhttpd.h", "apt-get install libmicrohttpd-dev"),
                ("CCurl", "curl", "apt-get install libcurl4-openssl-dev"),
            ])
        func missingHeader(target: String, header: String, line: String) throws {
            let missing = try build(target, hiding: header)
            #expect(missing.status != 0, "a build without \(header) must fail")
            #expect((missing.output + missing.errors).contains(line), "\(missing.output.suffix(800))")
            try FileManager.default.removeItem(atPath: root.file("include"))
            for folder in try FileManager.default.contentsOfDirectory(atPath: root.path)
            where folder.hasSuffix("-linux-gnu") {
                try FileManager.default.removeItem(atPath: root.file(folder))
            }
            let present = try build(target, hiding: nil)
            #expect(present.status == 0, "the same build with the header: \(present.output.suffix(800))")
        }
    }
#endif
