import Foundation
import TestSupport
import Testing

/// The docs tell the truth about the binary (`script/check-docs`): every command line in README.md and
/// docs/ runs in a sandbox (or, needing a server, uses only flags its command has), and every default a
/// document states for a flag is the binary's.
struct DocsEndToEndTests {
    @Test("every command line of the README and docs runs, and every stated default is the binary's")
    func docsRun() throws {
        let run = try BinaryRun.run(
            [Repository.path("script/check-docs"), BinaryRun.binary], environment: ["PATH": "/usr/bin:/bin"],
            executable: "/usr/bin/python3", timeout: 300)
        #expect(run.status == 0, "\(run.output)\(run.errors)")
        #expect(run.output.contains("; 0 wrong"), "\(run.output)")
    }
}
