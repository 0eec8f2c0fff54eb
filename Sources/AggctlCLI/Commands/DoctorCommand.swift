import HTTP
import Portable
import Privacy
import Serialization
import Snapshots
import Stores

/// `aggctl doctor`: can this machine reach, read and write the store, and what to fix when it cannot.
enum DoctorCommand {
    static let name = "doctor"
    static let summary = "Check that the store can be reached, read and written, and say what to fix."
    static let flags = [CommonFlags.store, CommonFlags.keyFile, CommonFlags.requireEncrypted]
    static let details = """
        Checks in order, stopping at the first that makes the rest meaningless. First the store's own:
          folder: that it (or its parent) exists;
          WebDAV: credentials (which source, never the password), the server (OPTIONS: reachable, speaks
          WebDAV), login (an authenticated PROPFIND: some servers answer OPTIONS to anyone), clock
          offset against the server's Date header;
          S3: the endpoint and region (and where each came from), credentials (which source, never the
          keys), then one listing request: endpoint reachable, signature accepted, clock offset against
          the server's, bucket exists.
        Then every record read as status reads them (files that cannot be used are listed), and a write:
        a probe record aggctl-doctor-*.json is written, read back and removed (a folder's clock is judged
        by its modification time after the probe). A folder or collection that does not exist yet is not
        created: the write is not tried.
        One line per check: ok, warn or FAIL, with what to fix. Exit 1 when a check fails.
        """

    static let command = Command(name: name, summary: summary, flags: flags, details: details) { flags, context in
        try run(flags, context: context)
    }

    static func run(_ flags: ParsedFlags, context: RunContext) throws -> ExitStatus {
        let location = try context.storeLocation(flags, command: name)
        guard let backend = StoreRegistry.standard.backend(of: location) else {
            throw CommandFailure("no store backend for '\(location.displayName)'")
        }
        var findings: [StoreFinding] = []
        let report = { (finding: StoreFinding) in
            findings.append(finding)
            show(finding, on: context.console)
        }
        report(StoreFinding(check: "store", outcome: .ok, detail: location.displayName))
        let diagnosis = backend.diagnosis(of: location, context: context.storeContext)
        if try diagnosis.checkAccess(report: report) {
            let store = try context.openStore(location)
            if let listed = checkListing(store, report: report) {
                checkWrite(store, diagnosis: diagnosis, clock: context.clock, report: report)
                checkDeviceID(store, location: location, context: context, report: report)
                checkMachines(listed, context: context, report: report)
                checkSealing(
                    try backend.open(location, context: context.storeContext), context: context, report: report)
            } else {
                report(
                    StoreFinding(
                        check: "write", outcome: .warning,
                        detail: "not tried: the store does not exist yet, and doctor creates nothing",
                        fix: "publish once (it creates the store), then run doctor again"))
            }
        }
        return findings.contains { $0.outcome == .failed } ? .failure : .success
    }

    /// Which records are sealed, for which key ids, which are plaintext, and whether this machine holds
    /// the key publish would seal with (`store` unsealed: the records as the server holds them).
    private static func checkSealing(_ store: any RecordStore, context: RunContext, report: (StoreFinding) -> Void) {
        let ring = context.sealing as? KeyRing
        var byKey: [String: Int] = [:]
        var plaintext = 0
        // Neither an envelope nor a record (garbage, cut short, too large, not readable): not "plaintext",
        // which would send a person to look for a machine publishing without the key.
        var unreadable = 0
        for info in (try? store.listRecords()) ?? [] {
            guard let data = try? store.readRecord(named: info.name, maximumSize: RecordCodec.maximumRecordSize)
            else {
                unreadable += 1
                continue
            }
            if let id = Envelope.keyID(of: data) {
                byKey[id, default: 0] += 1
            } else if (try? RecordCodec.decode(data, fileName: info.name)) != nil {
                plaintext += 1
            } else {
                unreadable += 1
            }
        }
        let held = Set(ring?.keys.map(\.id) ?? [])
        let sealed = byKey.keys.sorted().map { id in
            "\(byKey[id]!) sealed for key \(id)" + (held.contains(id) ? " (held here)" : " (not held here)")
        }
        let parts =
            sealed + (plaintext > 0 ? ["\(plaintext) plaintext"] : [])
            + (unreadable > 0 ? ["\(unreadable) neither (status names each)"] : [])
        let detail =
            (parts.isEmpty ? "no records" : parts.joined(separator: ", "))
            + (ring?.keys.first.map { "; publish seals with key \($0.id)" }
                ?? "; publish writes plaintext (no --key-file)")
        let missing = byKey.keys.contains { !held.contains($0) }
        if missing {
            report(
                StoreFinding(
                    check: "sealing", outcome: .warning, detail: detail,
                    fix: "give this machine the keys it lacks with --key-file (docs/privacy.md)"))
        } else if plaintext > 0 && !byKey.isEmpty {
            report(
                StoreFinding(
                    check: "sealing", outcome: .warning, detail: detail,
                    fix: "publish with --key-file on the machines whose records are plaintext"))
        } else {
            report(StoreFinding(check: "sealing", outcome: .ok, detail: detail))
        }
    }

    /// Whether another machine publishes under this machine's device id (`CloneGuard`).
    private static func checkDeviceID(
        _ store: any RecordStore, location: StoreLocation, context: RunContext, report: (StoreFinding) -> Void
    ) {
        let kept = context.configuration.setting("device-id").flatMap { DeviceID(rawValue: $0.value) }
        guard
            let deviceID = try? kept
                ?? DeviceIdentity.existingOrPreview(stateDirectory: context.stateDirectory, hostName: "")
        else { return }
        if deviceID.rawValue.hasSuffix("-dryrun") {
            report(StoreFinding(check: "device id", outcome: .ok, detail: "none yet: the first publish makes one"))
            return
        }
        let cloneGuard = CloneGuard(cacheFolder: context.cacheFolder, store: location.displayName)
        let name = cloneGuard.remembered()?.deviceName ?? context.hostName()
        switch cloneGuard.check(in: store, deviceID: deviceID, deviceName: name, now: context.clock()) {
        case .otherWriter(let other):
            report(
                StoreFinding(
                    check: "device id", outcome: .failed,
                    detail: "another machine publishes as '\(deviceID)' (its record names '\(other.deviceName)')",
                    fix: "on one of the two machines run 'aggctl devices --new-id'"))
        case .older(let found, let wroteAt):
            report(
                StoreFinding(
                    check: "device id", outcome: .warning,
                    detail:
                        "the store holds a record of '\(deviceID)' from \(RFC3339.format(found.generatedAt)), older "
                        + "than the one this machine wrote at \(RFC3339.format(wroteAt)): a restored backup or a replay",
                    fix: "publish again (it replaces it); readers leave it out meanwhile"))
        case nil:
            report(
                StoreFinding(check: "device id", outcome: .ok, detail: "'\(deviceID)', written by this machine only"))
        }
    }

    /// Whether other machines publish here: a store only this machine writes to is what a typo in
    /// `--store` (or in one machine's config) makes, and it looks healthy in every other check.
    /// - Parameter listed: the records the listing check read (no second listing: one request on a server).
    private static func checkMachines(_ listed: [String], context: RunContext, report: (StoreFinding) -> Void) {
        let own = (try? DeviceIdentity.existingOrPreview(stateDirectory: context.stateDirectory, hostName: ""))?
            .recordName
        let others = listed.filter { $0 != own }
        if others.isEmpty {
            report(
                StoreFinding(
                    check: "machines", outcome: .warning, detail: "no other machine publishes here",
                    fix:
                        "if another should, compare the store each one names ('aggctl config' says where it comes from)"
                ))
        } else {
            report(
                StoreFinding(
                    check: "machines", outcome: .ok,
                    detail:
                        "\(others.count) other machine\(others.count == 1 ? "" : "s") publish\(others.count == 1 ? "es" : "") here"
                ))
        }
    }

    /// One line per finding, and its fix indented under the detail.
    static func show(_ finding: StoreFinding, on console: Console) {
        console.print(
            "\(finding.outcome.rawValue)  \(finding.check.padded(to: 12))\(finding.detail)"
        )
        if let fix = finding.fix { console.print("      \(String(repeating: " ", count: 12))fix: \(fix)") }
    }

    /// Reads every record, as `status` would. Returns the names of the files listed (records and those
    /// with problems), or nil when the store does not exist.
    private static func checkListing(_ store: any RecordStore, report: (StoreFinding) -> Void) -> [String]? {
        do {
            let contents = try store.readContents()
            let records = contents.records.count
            let unusable = Set(contents.problems.map(\.file)).count
            let counted = "\(records) record\(records == 1 ? "" : "s")"
            if contents.problems.isEmpty {
                report(StoreFinding(check: "listing", outcome: .ok, detail: counted))
            } else {
                report(
                    StoreFinding(
                        check: "listing", outcome: .warning,
                        detail: "\(counted), and \(unusable) file\(unusable == 1 ? "" : "s") with problems",
                        fix: "status shows the rest; fix or remove the files below"))
                for problem in contents.problems.prefix(10) {
                    report(
                        StoreFinding(check: "record", outcome: .warning, detail: "'\(problem.file)': \(problem.reason)")
                    )
                }
            }
            return contents.records.map(\.fileName) + Set(contents.problems.map(\.file)).sorted()
        } catch StoreError.storeMissing {
            report(
                StoreFinding(
                    check: "listing", outcome: .warning, detail: "the store does not exist yet",
                    fix: "the first publish creates it"))
            return nil
        } catch {
            report(
                StoreFinding(
                    check: "listing", outcome: .failed, detail: "\(error)", fix: "check read permission on the store"))
            return []
        }
    }

    /// Writes, reads back and removes a probe record.
    private static func checkWrite(
        _ store: any RecordStore, diagnosis: any StoreDiagnosis, clock: () -> Date, report: (StoreFinding) -> Void
    ) {
        let probe = DeviceID(rawValue: "aggctl-doctor-" + String(UInt32.random(in: 0...UInt32.max), radix: 16))!
        let data = Data(
            #"{"deviceID":"\#(probe)","providers":[],"note":"written by aggctl doctor, removed at once"}"#.utf8)
        do {
            let started = Date()
            try store.writeRecord(data, for: probe)
            let written = clock()
            defer { try? store.removeRecord(for: probe) }
            guard try store.readRecord(named: probe.recordName) == data else {
                report(
                    StoreFinding(
                        check: "write", outcome: .failed, detail: "a probe record read back different",
                        fix: "check the store's sync or caching"))
                return
            }
            try store.removeRecord(for: probe)
            let milliseconds = Int(Date().timeIntervalSince(started) * 1000)
            report(
                StoreFinding(
                    check: "write", outcome: .ok,
                    detail: "wrote, read back and removed a probe record in \(milliseconds) ms"))
            diagnosis.checkAfterProbe(writtenAt: written, report: report)
        } catch {
            report(
                StoreFinding(
                    check: "write", outcome: .failed, detail: "\(error)",
                    fix: "the user needs permission to create, rename and delete files in the store"))
        }
    }
}
