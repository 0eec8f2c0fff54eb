import Foundation
import TestSupport
import Testing

/// `aggctl check`'s state file and its lock, as a crash, a disk or another check leaves them.
extension CheckEndToEndTests {
    @Test("a corrupt state file is set aside and reported, and old events do not fire again")
    func corruptState() throws {
        try publish("2026-11-30T12:00:00Z", used: 100)
        #expect(try check("2026-11-30T12:00:30Z").output.contains("\"depleted\""))
        try root.write("state/aggctl/alerts.json", "{ not json")
        let run = try check("2026-11-30T12:01:00Z")
        #expect(run.status == 0)
        #expect(run.output == "")
        #expect(run.errors.contains("could not be read"))
        #expect(root.entries("state/aggctl").contains { $0.hasPrefix("alerts.json.corrupt-") })
        #expect(try check("2026-11-30T12:02:00Z").output == "")
    }

    @Test("an empty object is no state: set aside, and delivered events do not fire again")
    func emptyObjectIsNoState() throws {
        try publish("2026-11-30T12:00:00Z", used: 100)
        #expect(try check("2026-11-30T12:00:30Z").output.contains("\"depleted\""))
        try root.write("state/aggctl/alerts.json", "{}")
        let run = try check("2026-11-30T12:01:00Z")
        #expect(run.status == 0)
        #expect(run.output == "", "fired again: \(run.output)")
        #expect(run.errors.contains("could not be read"), "\(run.errors)")
        #expect(run.errors.contains("it held no queued event"), "\(run.errors)")
    }

    @Test("events queued in a state file that is set aside are kept and delivered, and the warning says so")
    func corruptStateKeepsQueuedEvents() throws {
        try prepareDepletedEvent()
        let log = root.file("delivered.log")
        let gate = root.file("hook-may-succeed")
        let hookPath = try hook("hook.sh", log: log, then: "[ -e '\(gate)' ] || exit 3")
        #expect(try check("2026-11-30T12:10:30Z", ["--notify", "command:" + hookPath]).status == 1)
        let queuedID = lines(log).first
        // Not valid state (a version no release wrote), the outbox intact.
        let state = try String(contentsOfFile: root.file("state/aggctl/alerts.json"), encoding: .utf8)
        #expect(state.contains("\"schemaVersion\":1"))
        try root.write("state/aggctl/alerts.json", state.replacing("\"schemaVersion\":1", with: "\"schemaVersion\":0"))
        try root.write("hook-may-succeed", "")
        let run = try check("2026-11-30T12:11:00Z", ["--notify", "command:" + hookPath])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.errors.contains("its 1 queued event(s) are kept and delivered"), "\(run.errors)")
        #expect(lines(log).count == 5 && lines(log).last == queuedID, "\(lines(log))")
        // Garbage: nothing can be read of it, and the warning says that too.
        try root.write("state/aggctl/alerts.json", "{ not json")
        let garbage = try check("2026-11-30T12:12:00Z", ["--notify", "command:" + hookPath])
        #expect(garbage.errors.contains("events queued in it, if any, could not be read"), "\(garbage.errors)")
    }

    @Test("two corrupt state files set aside in the same second keep both copies; killed runs' temporaries go")
    func corruptTwice() throws {
        try publish("2026-11-30T12:00:00Z", used: 40)
        try root.write("state/aggctl/alerts.json", "{ not json, first")
        try root.write("state/aggctl/alerts.json.4242.deadbeef.tmp", "half written")
        _ = try check("2026-11-30T12:00:30Z")
        try root.write("state/aggctl/alerts.json", "{ not json, second")
        _ = try check("2026-11-30T12:00:31Z")
        let aside = root.entries("state/aggctl").filter { $0.hasPrefix("alerts.json.corrupt-") }
        #expect(aside.count == 2, "\(aside)")
        let texts = Set(
            aside.compactMap { try? String(contentsOfFile: root.file("state/aggctl/" + $0), encoding: .utf8) })
        #expect(texts == ["{ not json, first", "{ not json, second"])
        #expect(!root.entries("state/aggctl").contains { $0.hasSuffix(".tmp") })
    }

    @Test(
        "a state that cannot be read (a folder, a pipe) fails the run and is left alone; its events are kept",
        arguments: ["folder", "pipe"])
    func unreadableState(kind: String) throws {
        try prepareDepletedEvent()
        let state = root.file("state/aggctl/alerts.json")
        let saved = try Data(contentsOf: URL(fileURLWithPath: state))
        try FileManager.default.moveItem(atPath: state, toPath: state + ".saved")
        if kind == "folder" {
            try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
        } else {
            #expect(mkfifo(state, 0o600) == 0)
        }
        let run = try check("2026-11-30T12:10:30Z")
        #expect(run.status == 1)
        #expect(
            run.errors.contains("cannot read state '\(state)'") && run.errors.contains("left as it is"), "\(run.errors)"
        )
        #expect(run.output == "")
        var isFolder: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: state, isDirectory: &isFolder))
        #expect(isFolder.boolValue == (kind == "folder"))
        // Put back, the queued event is delivered.
        try FileManager.default.removeItem(atPath: state)
        try saved.write(to: URL(fileURLWithPath: state))
        let next = try check("2026-11-30T12:10:40Z")
        #expect(next.output.contains("\"depleted\""), "\(next.errors)")
    }

    @Test("a check waiting for another's lock says whom it waits for, and --lock-timeout gives up with exit 1")
    func lockTimeout() throws {
        try prepareDepletedEvent()
        let hookPath = try root.writeExecutable("slow.sh", "#!/bin/sh\ncat >/dev/null\nsleep 6\n")
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: BinaryRun.binary)
        holder.arguments = [
            "check", "--store", store, "--now", "2026-11-30T12:10:30Z", "--notify", "command:" + hookPath,
        ]
        holder.environment = environment
        holder.standardOutput = FileHandle.nullDevice
        holder.standardError = FileHandle.nullDevice
        try holder.run()
        defer { holder.waitUntilExit() }
        // The holder's lock file names it once it has the lock.
        let deadline = Date().addingTimeInterval(10)
        while (try? String(contentsOfFile: root.file("state/aggctl/alerts.lock"), encoding: .utf8))
            != "\(holder.processIdentifier)\n",
            Date() < deadline
        {
            usleep(20_000)
        }
        let started = Date()
        let waiting = try check("2026-11-30T12:10:31Z", ["--lock-timeout", "4"])
        let waited = Date().timeIntervalSince(started)
        #expect(waiting.status == 1)
        #expect(
            waiting.errors.contains("aggctl: waiting for the state lock")
                && waiting.errors.contains("held by process \(holder.processIdentifier)"), "\(waiting.errors)")
        #expect(waiting.errors.contains("gave up after waiting 4"), "\(waiting.errors)")
        #expect(waited >= 3.9 && waited < 6, "\(waited)")
    }
}
