import Foundation
import TestSupport
import Testing

/// The test servers' scripts, as a person first runs them: `--help` says how, a wrong call says the usage.
struct ScriptHelpTests {
    @Test(
        "script/webdav-server and script/s3-server answer --help, and a call without arguments gets the usage line",
        arguments: [
            ("script/webdav-server", "script/webdav-server rclone|apache|nginx PORT ROOT USER PASSWORD"),
            ("script/s3-server", "script/s3-server seaweedfs|moto PORT ROOT ACCESS_KEY SECRET"),
        ])
    func help(script: String, usage: String) throws {
        let help = try BinaryRun.run(
            [Repository.path(script), "--help"], environment: ["PATH": "/usr/bin:/bin"], executable: "/bin/bash")
        #expect(help.status == 0, "\(help.errors)")
        #expect(help.output.contains(usage))
        let bare = try BinaryRun.run(
            [Repository.path(script)], environment: ["PATH": "/usr/bin:/bin"], executable: "/bin/bash")
        #expect(bare.status == 2)
        #expect(bare.errors == "usage: \(usage)\n", "\(bare.errors)")
    }
}
