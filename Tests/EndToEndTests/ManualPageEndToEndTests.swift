import Foundation
import TestSupport
import Testing

/// `aggctl manpage`: the manual page lints clean in mandoc and renders in man.
struct ManualPageEndToEndTests {
    let root = TemporaryDirectory("aggctl-manpage")
    static let missing = ["mandoc", "man"].filter { !RequiredTool.available($0) }
    static let runs = missing.isEmpty || ProcessInfo.processInfo.environment["CI"] == "true"
    var environment: [String: String] { ["HOME": root.file("home"), "PATH": "/usr/bin:/bin", "MANWIDTH": "100"] }

    @Test(
        "mandoc -T lint finds nothing; man -l shows every command and its flags",
        .enabled(if: runs, "needs mandoc and man-db"))
    func lintsAndRenders() throws {
        try #require(Self.missing.isEmpty, "missing under CI: \(Self.missing); script/bootstrap installs them")
        let page = try BinaryRun.run(["manpage"], environment: environment)
        #expect(page.status == 0)
        let path = try root.write("aggctl.1", page.output)
        let lint = try BinaryRun.run(["-T", "lint", path], environment: environment, executable: "/usr/bin/mandoc")
        #expect(lint.status == 0 && lint.output.isEmpty && lint.errors.isEmpty, "\(lint.output)\(lint.errors)")
        let shown = try BinaryRun.run(["-l", path], environment: environment, executable: "/usr/bin/man")
        #expect(shown.status == 0, "\(shown.errors)")
        for word in [
            "publish", "status", "check", "report", "export", "statusline", "completions", "--warn-pace", "EXIT STATUS",
            "AGGCTL_STORE",
        ] {
            #expect(shown.output.contains(word), "the page lacks \(word)")
        }
    }
}
