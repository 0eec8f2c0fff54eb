import Foundation
import TestSupport
import Testing

/// `script/install PREFIX` lays out the binary, the manual page and the completions.
struct InstallEndToEndTests {
    let root = TemporaryDirectory("aggctl-install")

    @Test("script/install puts every file in its place under the prefix, and the installed binary runs")
    func installs() throws {
        let prefix = root.file("prefix")
        let run = try BinaryRun.run(
            [Repository.path("script/install"), prefix],
            environment: ["HOME": root.file("home"), "PATH": "/usr/bin:/bin", "AGGCTL_BINARY": BinaryRun.binary],
            executable: "/bin/bash")
        #expect(run.status == 0, "\(run.errors)")
        for file in [
            "bin/aggctl", "share/man/man1/aggctl.1", "share/bash-completion/completions/aggctl",
            "share/zsh/site-functions/_aggctl", "share/fish/vendor_completions.d/aggctl.fish",
        ] {
            #expect(FileManager.default.fileExists(atPath: prefix + "/" + file), "\(file) missing")
        }
        #expect(FileManager.default.isExecutableFile(atPath: prefix + "/bin/aggctl"))
        let version = try BinaryRun.run(["--version"], environment: [:], executable: prefix + "/bin/aggctl")
        #expect(version.status == 0 && version.output.hasPrefix("aggctl "))
        // Nothing but the five files: no temporary name left behind.
        let all = FileManager.default.enumerator(atPath: prefix)?.allObjects as? [String] ?? []
        #expect(!all.contains { $0.contains(".tmp.") })
        // Again: replaced in place.
        let again = try BinaryRun.run(
            [Repository.path("script/install"), prefix],
            environment: ["HOME": root.file("home"), "PATH": "/usr/bin:/bin", "AGGCTL_BINARY": BinaryRun.binary],
            executable: "/bin/bash")
        #expect(again.status == 0)
    }
}
