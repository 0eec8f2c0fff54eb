import Foundation
import TestSupport
import Testing

/// `check` with its state directory on a small file system that fills up: a delivery is recorded in room
/// claimed before it went out, so a full disk never sends an event twice, and without room nothing goes
/// out. Needs root for the tmpfs mount (CI runs as root).
struct FullDiskEndToEndTests {
    let root = TemporaryDirectory("aggctl-full-disk")
    var mount: String { root.file("state") }
    var environment: [String: String] {
        ["HOME": root.file("home"), "XDG_STATE_HOME": mount, "PATH": "/usr/bin:/bin"]
    }

    func publish(_ lastUpdated: String, used: Double) throws {
        let entry = Records.entry(
            email: "you@example.com", at: lastUpdated, sessionUsed: used,
            resetsAt: Records.sessionReset(after: lastUpdated))
        try root.write("store/laptop.json", Records.json(Records.snapshot("laptop", generatedAt: lastUpdated, [entry])))
    }

    func check(_ now: String, hook: String) throws -> BinaryRun {
        try BinaryRun.run(
            ["check", "--store", root.file("store"), "--now", now, "--notify", "command:" + hook],
            environment: environment)
    }

    func lines(_ path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// A hook that runs `before`, logs the event's id to `log` (a delivery), then runs `after` (what
    /// happens to the disk meanwhile), and succeeds.
    func deliveringHook(log: String, before: String = "", after: String) throws -> String {
        try root.writeExecutable(
            "hook.sh",
            """
            #!/bin/sh
            \(before)
            read -r line
            id=$(printf '%s' "$line" | sed 's/.*"id":"\\([^"]*\\)".*/\\1/')
            echo "$id" >> '\(log)'
            \(after)
            exit 0
            """)
    }

    /// Runs `body` with a 512 KiB tmpfs mounted as the state home, unmounted afterwards whatever happens.
    func withSmallDisk(_ body: () throws -> Void) throws {
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        let mounted = try BinaryRun.run(
            ["-t", "tmpfs", "-o", "size=512k,mode=0700", "tmpfs", mount], environment: environment,
            executable: "/bin/mount")
        try #require(mounted.status == 0, "mount: \(mounted.errors)")
        defer { _ = try? BinaryRun.run([mount], environment: environment, executable: "/bin/umount") }
        try body()
    }

    @Test(
        "a disk that fills while the hook runs does not deliver again; a full one delivers nothing until freed",
        .enabled(if: getuid() == 0, "mounting a small tmpfs needs root"))
    func fullDisk() throws {
        try withSmallDisk {
            let log = root.file("delivered.log")
            let fill = mount + "/fill"
            let gate = root.file("hook-fails")
            // Delivers (logs the event), then fills the state's disk, as another program might meanwhile.
            let hook = try deliveringHook(
                log: log, before: "[ -e '\(gate)' ] && exit 3",
                after: "[ -e '\(root.file("fill-disk"))' ] && dd if=/dev/zero of='\(fill)' bs=4096 2>/dev/null")
            try publish("2026-11-30T12:00:00Z", used: 40)
            #expect(try check("2026-11-30T12:00:30Z", hook: hook).status == 0)

            // 1. The disk fills between the delivery and its record.
            try publish("2026-11-30T12:10:00Z", used: 100)
            try root.write("fill-disk", "")
            let filled = try check("2026-11-30T12:10:30Z", hook: hook)
            #expect(lines(log).count == 1)
            #expect(filled.status == 1, "the final state write failed: \(filled.errors)")
            try FileManager.default.removeItem(atPath: fill)
            try FileManager.default.removeItem(atPath: root.file("fill-disk"))
            let after = try check("2026-11-30T12:11:00Z", hook: hook)
            #expect(after.status == 0, "\(after.errors)")
            #expect(lines(log).count == 1, "delivered again after the disk filled: \(lines(log))")

            // 2. The disk is full before the run: nothing goes out, the event stays queued.
            // Published after the window's reset, so the restore fires at once.
            try publish("2026-11-30T15:05:00Z", used: 10)
            try root.write("hook-fails", "")
            #expect(try check("2026-11-30T15:05:30Z", hook: hook).status == 1)  // queued: "restored"
            try FileManager.default.removeItem(atPath: gate)
            _ = try BinaryRun.run(
                ["if=/dev/zero", "of=\(fill)", "bs=4096"], environment: environment, executable: "/bin/dd")
            let full = try check("2026-11-30T15:06:00Z", hook: hook)
            #expect(full.status == 1)
            #expect(full.errors.contains("nothing was delivered, 1 event(s) stay queued"), "\(full.errors)")
            #expect(full.errors.contains("no space left on device"), "\(full.errors)")
            #expect(lines(log).count == 1)
            try FileManager.default.removeItem(atPath: fill)
            #expect(try check("2026-11-30T15:07:00Z", hook: hook).status == 0)
            #expect(try check("2026-11-30T15:08:00Z", hook: hook).status == 0)
            #expect(lines(log).count == 2, "\(lines(log))")
            #expect(Set(lines(log)).count == 2)
        }
    }

    @Test(
        "a state folder that turns read-only while the hook runs does not deliver again",
        .enabled(if: getuid() == 0, "a read-only bind mount needs root"))
    func readOnlyMidRun() throws {
        try withSmallDisk {
            let log = root.file("delivered.log")
            let flag = root.file("turn-read-only")
            // Delivers (logs the event), then lays a read-only bind mount over the state, as an admin
            // remounting it would: every new open there fails with EROFS from then on.
            let hook = try deliveringHook(
                log: log, after: "[ -e '\(flag)' ] && /bin/mount --bind -o ro '\(mount)' '\(mount)'")
            try publish("2026-11-30T12:00:00Z", used: 40)
            #expect(try check("2026-11-30T12:00:30Z", hook: hook).status == 0)
            try publish("2026-11-30T12:10:00Z", used: 100)
            try root.write("turn-read-only", "")
            let turned = try check("2026-11-30T12:10:30Z", hook: hook)
            #expect(lines(log).count == 1)
            #expect(turned.status == 1, "the final state write failed: \(turned.errors)")
            #expect(turned.errors.contains("read-only file system"), "\(turned.errors)")
            try FileManager.default.removeItem(atPath: flag)
            let unmounted = try BinaryRun.run(["-l", mount], environment: environment, executable: "/bin/umount")
            try #require(unmounted.status == 0, "umount: \(unmounted.errors)")
            let after = try check("2026-11-30T12:11:00Z", hook: hook)
            #expect(after.status == 0, "\(after.errors)")
            #expect(lines(log).count == 1, "delivered again after the state turned read-only: \(lines(log))")
        }
    }

    @Test("a journal that cannot be read fails the run before anything is delivered")
    func unreadableJournal() throws {
        let log = root.file("delivered.log")
        let hook = try root.writeExecutable("hook.sh", "#!/bin/sh\ncat >> '\(log)'\n")
        try publish("2026-11-30T12:00:00Z", used: 40)
        #expect(try check("2026-11-30T12:00:30Z", hook: hook).status == 0)
        try publish("2026-11-30T12:10:00Z", used: 100)
        // A folder where the journal should be: it cannot be read as one.
        try FileManager.default.createDirectory(
            atPath: mount + "/aggctl/alerts.journal", withIntermediateDirectories: true)
        let run = try check("2026-11-30T12:10:30Z", hook: hook)
        #expect(run.status == 1)
        #expect(run.errors.contains("alerts.journal': it is not a regular file"), "\(run.errors)")
        #expect(lines(log).isEmpty)
    }
}
