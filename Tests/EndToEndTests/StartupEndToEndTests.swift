import Foundation
import Snapshots
import TestSupport
import Testing

/// libcurl is opened on first use: commands without HTTP never load it, and work without it.
struct StartupEndToEndTests {
    let root = TemporaryDirectory("aggctl-startup")
    var environment: [String: String] {
        ["HOME": root.file("home"), "XDG_STATE_HOME": root.file("state"), "PATH": "/usr/bin:/bin"]
    }

    #if os(Linux)
        @Test("start-up does not load libcurl, and the binary does not link it")
        func notLoadedAtStartUp() throws {
            var traced = environment
            traced["LD_DEBUG"] = "libs"
            let run = try BinaryRun.run(["--version"], environment: traced)
            #expect(run.status == 0)
            #expect(run.errors.contains("libc.so"), "LD_DEBUG gave no trace: \(run.errors.prefix(200))")
            #expect(!run.errors.contains("libcurl"))
            let elf = try BinaryRun.run(
                ["-d", BinaryRun.binary], environment: environment, executable: "/usr/bin/readelf")
            #expect(elf.status == 0)
            #expect(elf.output.contains("NEEDED") && !elf.output.contains("libcurl"))
        }
    #endif

    @Test("without libcurl, a folder store works and an http store fails with one line naming what is missing")
    func withoutLibcurl() throws {
        var missing = environment
        missing["AGGCTL_LIBCURL"] = root.file("no/libcurl.so.4")
        try root.write(
            "store/box.json",
            Records.json(
                Records.snapshot(
                    "box", generatedAt: "2026-11-30T11:00:00Z", [Records.entry(at: "2026-11-30T11:00:00Z")])))
        let folder = try BinaryRun.run(
            ["status", "--store", root.file("store"), "--json", "--now", "2026-11-30T12:00:00Z"], environment: missing)
        #expect(folder.status == 0)
        #expect(folder.output.contains("\"deviceID\":\"box\""))
        let server = try BinaryRun.run(["status", "--store", "http://127.0.0.1:9/dav/"], environment: missing)
        #expect(server.status == 1)
        #expect(server.errors.split(separator: "\n").count == 1)
        #expect(server.errors.contains("libcurl could not be loaded (\(root.file("no/libcurl.so.4")))"))
        #expect(server.errors.contains("apt install libcurl4"))
    }
}
