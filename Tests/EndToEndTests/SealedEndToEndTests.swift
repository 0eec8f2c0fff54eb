import Foundation
import Snapshots
import TestSupport
import Testing

/// Sealed records through the shipped binary (docs/privacy.md): the store holds envelopes only, readers
/// with the key merge them, and every way one can fail is one problem while the rest merges.
struct SealedEndToEndTests {
    let root = TemporaryDirectory("aggctl-sealed")

    func machine(_ name: String, _ extra: [String: String] = [:]) -> [String: String] {
        ["HOME": root.file(name), "XDG_STATE_HOME": root.file(name + "/state"), "PATH": "/usr/bin:/bin"]
            .merging(extra) { $1 }
    }

    func input(_ email: String, used: Double, at: String = "2026-11-30T11:50:00Z") -> Data {
        Data(
            #"[{"providerID": "claude", "accountEmail": "\#(email)", "lastUpdated": "\#(at)", "session": {"usedPercent": \#(used), "resetsAt": "2026-11-30T15:00:00Z"}}]"#
                .utf8)
    }

    func newKey(_ name: String) throws -> String {
        let path = root.file(name + ".key")
        let run = try BinaryRun.run(["key", "new", "--out", path], environment: machine("keys"))
        #expect(run.status == 0 && run.output.count == 17, "\(run.errors)")
        return path
    }

    func publish(
        _ store: String, _ device: String, _ email: String, keys: [String], used: Double = 30,
        extra: [String: String] = [:]
    ) throws -> BinaryRun {
        try BinaryRun.run(
            ["publish", "--store", store, "--device-id", device, "--from", "-", "--now", "2026-11-30T11:55:00Z"]
                + keys.flatMap { ["--key-file", $0] },
            environment: machine(device, extra), input: input(email, used: used))
    }

    func status(_ store: String, keys: [String], _ more: [String] = [], extra: [String: String] = [:]) throws
        -> (accounts: [String], problems: [String: String], run: BinaryRun)
    {
        let run = try BinaryRun.run(
            ["status", "--store", store, "--json", "--now", "2026-11-30T12:00:00Z"] + more
                + keys.flatMap { ["--key-file", $0] }, environment: machine("reader", extra))
        let report = (try? JSONSerialization.jsonObject(with: Data(run.output.utf8))) as? [String: Any] ?? [:]
        let accounts = (report["accounts"] as? [[String: Any]] ?? []).compactMap { $0["accountEmail"] as? String }
        var problems: [String: String] = [:]
        for problem in report["problems"] as? [[String: Any]] ?? [] {
            problems[problem["file"] as? String ?? ""] = problem["reason"] as? String
        }
        return (accounts.sorted(), problems, run)
    }

    /// The bytes of every file under `folder`, for looking for what must not be there.
    func everything(under folder: String) -> String {
        var text = ""
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let name = enumerator?.nextObject() as? String {
            if let data = FileManager.default.contents(atPath: folder + "/" + name) {
                text += String(decoding: data, as: UTF8.self)
            }
        }
        return text
    }

    @Test(
        "a sealed folder store: envelopes only, merged with the key; each broken envelope one problem, the rest merged")
    func folderStore() throws {
        let key = try newKey("store")
        let other = try newKey("other")
        let store = root.file("store")
        for (device, email) in [
            ("laptop", "a@example.com"), ("desktop", "b@example.com"), ("box", "c@example.com"),
            ("mini", "d@example.com"), ("tower", "e@example.com"), ("pi", "f@example.com"),
        ] {
            #expect(try publish(store, device, email, keys: [key]).status == 0)
        }
        // Written an hour ago, so that the reader's caches keep them (records changed in the last two
        // seconds are left out), and the caches can be searched for the key.
        for name in try FileManager.default.contentsOfDirectory(atPath: store) {
            try FileManager.default.setAttributes(
                [.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: store + "/" + name)
        }
        let stored = everything(under: store)
        #expect(!stored.contains("example.com") && !stored.contains("claude"), "no plaintext in the store")
        #expect(stored.contains("aggctlEncrypted"))
        let whole = try status(store, keys: [key])
        #expect(whole.accounts.count == 6 && whole.problems.isEmpty, "\(whole.run.errors)")

        // A flipped byte, a swapped file name, a truncated envelope, another key's envelope.
        var sealed = try Data(contentsOf: URL(fileURLWithPath: store + "/laptop.json"))
        let at = sealed.firstRange(of: Data(#""ciphertext":""#.utf8))!.upperBound + 5
        sealed[at] = sealed[at] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        try sealed.write(to: URL(fileURLWithPath: store + "/laptop.json"))
        try FileManager.default.removeItem(atPath: store + "/mini.json")
        try FileManager.default.copyItem(atPath: store + "/desktop.json", toPath: store + "/mini.json")
        let box = try Data(contentsOf: URL(fileURLWithPath: store + "/box.json"))
        try box.prefix(box.count / 2).write(to: URL(fileURLWithPath: store + "/box.json"))
        #expect(try publish(store, "tower", "e@example.com", keys: [other]).status == 0)
        // Another key's envelope that names this key's id: it does not open (a wrong key, not a missing one).
        let keyID = try #require(
            (try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: store + "/desktop.json")))
                as? [String: Any])?["keyID"] as? String)
        #expect(try publish(store, "pi", "f@example.com", keys: [other]).status == 0)
        var pi =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: store + "/pi.json")))
            as? [String: Any] ?? [:]
        pi["keyID"] = keyID
        try JSONSerialization.data(withJSONObject: pi).write(to: URL(fileURLWithPath: store + "/pi.json"))
        let broken = try status(store, keys: [key])
        #expect(broken.run.status == 0)
        #expect(broken.accounts == ["b@example.com"], "the rest merged")
        #expect(
            broken.problems["pi.json"]?.contains("encrypted for key \(keyID), but it does not open") == true,
            "\(broken.problems)")
        #expect(broken.problems["laptop.json"]?.contains("does not open") == true)
        #expect(broken.problems["mini.json"]?.contains("does not open") == true, "sealed for another file name")
        #expect(broken.problems["box.json"]?.contains("encrypted, but") == true)
        #expect(broken.problems["tower.json"]?.contains("which this machine does not have") == true)
        #expect(broken.problems.count == 5)
        // Without a key: each record is named, as encrypted.
        let keyless = try status(store, keys: [])
        #expect(keyless.problems["desktop.json"]?.hasPrefix("encrypted for key ") == true)
        #expect(keyless.problems["desktop.json"]?.hasSuffix("; give its store's key with --key-file") == true)
        // The keys never show, nor rest in the caches.
        let keyText = try String(contentsOfFile: key, encoding: .utf8).dropFirst("aggctl-key-1:".count).prefix(20)
        for run in [whole.run, broken.run, keyless.run] {
            #expect(!(run.output + run.errors).contains(keyText))
        }
        #expect(!everything(under: root.file("reader")).contains(keyText))
        // The caches of opened records are the reader's alone.
        let state = root.file("reader/state")
        let kept = (FileManager.default.enumerator(atPath: state)?.allObjects ?? []).compactMap { $0 as? String }
        #expect(kept.contains { $0.hasSuffix(".cache") }, "\(kept)")
        for name in kept {
            let mode = try FileManager.default.attributesOfItem(atPath: state + "/" + name)[.posixPermissions] as? Int
            #expect((mode ?? 0o777) & 0o077 == 0, "\(name) is mode \(String(mode ?? 0, radix: 8))")
        }
    }

    @Test("check on a sealed store alerts as on a plain one, and its hook sees neither the key nor its file")
    func hookGetsNoKey() throws {
        let key = try newKey("store")
        let store = root.file("store")
        #expect(try publish(store, "laptop", "a@example.com", keys: [key], used: 100).status == 0)
        let out = root.file("hook-env")
        let hook = try root.writeExecutable("env-hook.sh", "#!/bin/sh\ncat > '\(out).event'\nenv > '\(out)'\n")
        let run = try BinaryRun.run(
            [
                "check", "--store", store, "--key-file", key, "--now", "2026-11-30T12:00:00Z", "--notify",
                "command:" + hook,
            ], environment: machine("reader"))
        #expect(run.status == 0, "\(run.errors)")
        let seen = try String(contentsOfFile: out, encoding: .utf8)
        #expect(seen.contains("AGGCTL_EVENT_KIND=depleted"), "the sealed record's depleted session alerted")
        let keyText = try String(contentsOfFile: key, encoding: .utf8).dropFirst("aggctl-key-1:".count).prefix(20)
        let event = try String(contentsOfFile: out + ".event", encoding: .utf8)
        for text in [seen, event, run.output, run.errors] {
            #expect(!text.contains(keyText) && !text.contains(key), "the key or its file reached the hook")
        }
        #expect(!everything(under: root.file("reader")).contains(keyText), "nor rests in the state directory")
    }

    @Test("rotation: a publisher on the new key, readers holding both, then the old one retired")
    func rotation() throws {
        let old = try newKey("old")
        let new = try newKey("new")
        let store = root.file("store")
        #expect(try publish(store, "laptop", "a@example.com", keys: [old]).status == 0)
        #expect(try publish(store, "desktop", "b@example.com", keys: [new, old]).status == 0)
        #expect(try status(store, keys: [old, new]).accounts == ["a@example.com", "b@example.com"])
        #expect(try publish(store, "laptop", "a@example.com", keys: [new]).status == 0)
        let retired = try status(store, keys: [new])
        #expect(retired.accounts == ["a@example.com", "b@example.com"] && retired.problems.isEmpty)
    }

    @Test(
        "plaintext beside sealed records: a note with keys, a problem with --require-encrypted; loose key files refused"
    )
    func plaintextAndPermissions() throws {
        let key = try newKey("store")
        let store = root.file("store")
        #expect(try publish(store, "laptop", "a@example.com", keys: [key]).status == 0)
        #expect(try publish(store, "old", "b@example.com", keys: []).status == 0)
        let mixed = try status(store, keys: [key])
        #expect(mixed.accounts == ["a@example.com", "b@example.com"])
        #expect(mixed.problems["old.json"] == "not encrypted, in a store read with keys")
        try root.write("store/garbage.json", "not a record at all")
        let doctor = try BinaryRun.run(["doctor", "--store", store, "--key-file", key], environment: machine("reader"))
        #expect(doctor.output.contains("1 sealed for key ") && doctor.output.contains("(held here), 1 plaintext, "))
        #expect(doctor.output.contains("1 neither (status names each)"), "a garbage file is no plaintext record")
        try FileManager.default.removeItem(atPath: root.file("store/garbage.json"))
        let strict = try status(store, keys: [key], ["--require-encrypted"])
        #expect(strict.accounts == ["a@example.com"])
        #expect(strict.problems["old.json"] == "not encrypted (--require-encrypted)")
        chmod(key, 0o640)
        let loose = try status(store, keys: [key])
        #expect(loose.run.status == 1)
        #expect(loose.run.errors.contains("others may read it (mode 640); chmod 600 it first"))
    }

    @Test("without libsodium, plaintext stores work and a key file is one line saying what to install")
    func withoutLibsodium() throws {
        let key = try newKey("store")
        let store = root.file("store")
        let missing = ["AGGCTL_LIBSODIUM": root.file("no/libsodium.so.23")]
        #expect(try publish(store, "laptop", "a@example.com", keys: [], extra: missing).status == 0)
        #expect(try status(store, keys: [], extra: missing).accounts == ["a@example.com"])
        for run in [
            try publish(store, "desktop", "b@example.com", keys: [key], extra: missing),
            try status(store, keys: [key], extra: missing).run,
        ] {
            #expect(run.status == 1)
            let lines = run.errors.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("apt install libsodium23"), "\(run.errors)")
        }
        #expect(!FileManager.default.fileExists(atPath: store + "/desktop.json"), "nothing written unsealed")
    }

    @Test(
        "a sealed WebDAV (rclone) and S3 (SeaweedFS) store carry envelopes as they carry records",
        .enabled(if: RequiredTool.available("rclone") && S3Server.Kind.seaweedfs.isAvailable))
    func serverStores() throws {
        let key = try newKey("store")
        let webdav = try WebDAVServer.shared(.rclone)
        let s3 = try S3Server.shared(.seaweedfs)
        let credentials = [
            "AGGCTL_WEBDAV_USER": WebDAVServer.user, "AGGCTL_WEBDAV_PASSWORD": WebDAVServer.password,
        ].merging(s3.environment) { $1 }
        for store in [
            "\(webdav.origin)/\(try webdav.makeFolder())/store/", "s3://\(S3Server.bucket)/\(s3.makePrefix())store/",
        ] {
            #expect(try publish(store, "laptop", "a@example.com", keys: [key], extra: credentials).status == 0)
            #expect(try publish(store, "desktop", "b@example.com", keys: [key], extra: credentials).status == 0)
            let read = try status(store, keys: [key], extra: credentials)
            #expect(read.accounts == ["a@example.com", "b@example.com"], "\(store): \(read.run.errors)")
            let keyless = try status(store, keys: [], extra: credentials)
            #expect(keyless.accounts.isEmpty && keyless.problems.count == 2)
        }
    }
}
