import Foundation
import Snapshots
import TestSupport
import Testing

@testable import AggctlCLI

/// `publish` in-process: the record it writes, what it refuses, and what it reads from the agents.
extension CommandTests {
    @Test("publish writes one canonical record, and creates the device id once with mode 0600")
    func publishWritesRecord() throws {
        var harness = Harness()
        let store = harness.home.file("store")
        harness.stdin = Data(
            #"[{"providerID": "codex", "accountEmail": "me@x", "lastUpdated": "2026-11-30T11:59:00Z", "session": {"usedPercent": 12}}]"#
                .utf8)
        #expect(harness.run("publish", "--store", store, "--from", "-").status == .success)
        let idFile = harness.home.file("state/aggctl/device-id")
        let id = try String(contentsOfFile: idFile, encoding: .utf8).trimmingCharacters(in: .newlines)
        #expect(id.hasPrefix("test-host-"))
        let mode = try FileManager.default.attributesOfItem(atPath: idFile)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(harness.home.entries("store") == ["\(id).json"])

        #expect(harness.run("publish", "--store", store, "--from", "-").status == .success)
        #expect(try String(contentsOfFile: idFile, encoding: .utf8).trimmingCharacters(in: .newlines) == id)
        let record = try RecordCodec.decode(
            Data(contentsOf: URL(fileURLWithPath: store + "/\(id).json")), fileName: "\(id).json")
        #expect(record.snapshot.deviceName == "test-host")
        #expect(record.snapshot.generatedAt == harness.now)
        #expect(record.snapshot.appVersion == "aggctl \(Aggctl.version)")
        #expect(record.snapshot.providers.map(\.accountEmail) == ["me@x"])
    }

    @Test("publish --dry-run prints the record and writes nothing")
    func dryRun() throws {
        let harness = Harness()
        let outcome = harness.run(
            "publish", "--store", harness.home.file("store"), "--device-id", "box", "--dry-run",
            "--from", Repository.path("Examples/usage/codexbar-usage.json"))
        #expect(outcome.status == .success)
        let record = try RecordCodec.decode(Data(outcome.output.utf8), fileName: "box.json")
        #expect(record.snapshot.deviceID.rawValue == "box")
        #expect(record.snapshot.providers.map(\.providerID) == ["codex", "claude", "cursor"])
        #expect(harness.home.entries().contains("store") == false)
    }

    @Test("publish refuses bad input naming the file, and writes nothing")
    func publishBadInput() throws {
        let harness = Harness()
        let bad = try harness.home.write("bad.json", #"{"providers": [{"providerID": "codex"}]}"#)
        let store = harness.home.file("store")
        let outcome = harness.run("publish", "--store", store, "--device-id", "box", "--from", bad)
        #expect(outcome.status == .failure)
        #expect(outcome.errors == "aggctl: error: --from '\(bad)': missing 'lastUpdated' at 'providers[0]'\n")
        let missing = harness.run(
            "publish", "--store", store, "--device-id", "box", "--from", harness.home.file("nope.json"))
        #expect(missing.status == .failure)
        #expect(missing.errors.contains("cannot read --from '\(harness.home.file("nope.json"))': no such file"))
        let empty = try harness.home.write("empty.json", "[]")
        #expect(harness.run("publish", "--store", store, "--device-id", "box", "--from", empty).status == .failure)
        #expect(harness.home.entries().contains("store") == false)
    }

    @Test("publish --source codex:PATH publishes what this machine's Codex logs say")
    func publishFromCodexLogs() throws {
        var harness = Harness()
        let home = Repository.path("Tests/CollectorsTests/Fixtures/codex-home")
        harness.now = Records.date("2026-11-30T12:00:00Z")
        let outcome = harness.run(
            "publish", "--store", harness.home.file("store"), "--device-id", "box", "--dry-run", "--source",
            "codex:" + home)
        #expect(outcome.status == .success, "\(outcome.errors)")
        let record = try RecordCodec.decode(Data(outcome.output.utf8), fileName: "box.json")
        let codex = try #require(record.snapshot.providers.first)
        #expect(codex.providerID == "codex")
        #expect(codex.accountEmail == "dev243@example.com")
        #expect(codex.session?.usedPercent == 52.1)
        harness.environment["CODEX_HOME"] = harness.home.file("nothing-here")
        let missing = harness.run("publish", "--store", harness.home.file("store"), "--source", "codex")
        #expect(missing.status == .failure)
        #expect(missing.errors.contains("--source codex: no Codex logs in"))
    }

    @Test("publish --source codex --source codex-api: one entry, the endpoint's windows with the logs' tokens")
    func publishCombinesLogsAndEndpoint() throws {
        var harness = Harness()
        let home = Repository.path("Tests/CollectorsTests/Fixtures/codex-home")
        harness.now = Records.date("2026-11-30T12:00:00Z")
        harness.environment["AGGCTL_CODEX_API_URL"] = try LocalServer.sharedHTTPServer().origin + "/usage-api/ok"
        let outcome = harness.run(
            "publish", "--store", harness.home.file("store"), "--device-id", "box", "--dry-run", "--source",
            "codex:" + home, "--source", "codex-api:" + home)
        #expect(outcome.status == .success, "\(outcome.errors)")
        let record = try RecordCodec.decode(Data(outcome.output.utf8), fileName: "box.json")
        #expect(record.snapshot.providers.count == 1)
        let codex = try #require(record.snapshot.providers.first)
        #expect(codex.session?.usedPercent == 14, "the endpoint's exact window wins over the logs'")
        #expect(codex.weekly?.usedPercent == 38)
        #expect(codex.tokens?.today != nil, "the logs' tokens are kept")
        #expect(codex.accountEmail == "dev243@example.com" && codex.error == nil)

        // Signed out: the entry says so, and the publish still succeeds.
        harness.environment["CODEX_HOME"] = harness.home.file("nowhere")
        let signedOut = harness.run(
            "publish", "--store", harness.home.file("store"), "--device-id", "box", "--dry-run", "--source", "codex-api"
        )
        #expect(signedOut.status == .success, "\(signedOut.errors)")
        let entry = try RecordCodec.decode(Data(signedOut.output.utf8), fileName: "box.json").snapshot.providers.first
        #expect(entry?.error == "signed out (no ChatGPT login in '\(harness.home.file("nowhere"))/auth.json')")
    }
}
