import Foundation
import HTTP
import Snapshots

/// `aggctl doctor`: can this machine reach, read and write the store, and what to fix when it cannot.
enum DoctorCommand {
    static let name = "doctor"
    static let summary = "Check that the store can be reached, read and written, and say what to fix."
    static let flags = [CommonFlags.store]
    static let details = """
        Checks in order, stopping at the first that makes the rest meaningless:
          WebDAV: credentials (which source, never the password), the server (OPTIONS: reachable, speaks
          WebDAV), login (an authenticated PROPFIND: some servers answer OPTIONS to anyone), clock
          offset against the server's Date header;
          folder: that it (or its parent) exists;
          then every record read as status reads them (files that cannot be used are listed), and a
          write: a probe record aggctl-doctor-*.json is written, read back and removed (a folder's clock
          is judged by its modification time after the probe). A store that does not exist yet is not
          created: the write is not tried.
        One line per check: ok, warn or FAIL, with what to fix. Exit 1 when a check fails.
        """

    static let command = Command(name: name, summary: summary, flags: flags, details: details) { flags, context in
        try run(flags, context: context)
    }

    /// One check's outcome, as printed.
    struct Finding {
        enum Outcome: String {
            case ok = "ok  "
            case warning = "warn"
            case failed = "FAIL"
        }

        var check: String
        var outcome: Outcome
        var detail: String
        var fix: String? = nil
    }

    /// Clocks further apart than this are worth a warning: records would be flagged `clockSkew` long
    /// before `--max-skew` (300 s) if they drifted more.
    static let clockTolerance: TimeInterval = 30

    static func run(_ flags: ParsedFlags, context: RunContext) throws -> ExitStatus {
        let location = try context.storeLocation(flags, command: name)
        var findings: [Finding] = []
        let report = { (finding: Finding) in
            findings.append(finding)
            show(finding, on: context.console)
        }
        report(Finding(check: "store", outcome: .ok, detail: location.displayName))
        var fatal = false
        switch location {
        case .webDAV(let url):
            fatal = try checkServer(url, context: context, report: report)
        case .directory(let path):
            fatal = checkFolder(path, report: report)
        }
        if !fatal {
            let store = try context.openStore(location)
            if checkListing(store, report: report) {
                checkWrite(store, location: location, clock: context.clock, report: report)
            } else {
                report(
                    Finding(
                        check: "write", outcome: .warning,
                        detail: "not tried: the store does not exist yet, and doctor creates nothing",
                        fix: "publish once (it creates the store), then run doctor again"))
            }
        }
        return findings.contains { $0.outcome == .failed } ? .failure : .success
    }

    /// One line per finding, and its fix indented under the detail.
    static func show(_ finding: Finding, on console: Console) {
        console.print(
            "\(finding.outcome.rawValue)  \(finding.check.padding(toLength: 12, withPad: " ", startingAt: 0))\(finding.detail)"
        )
        if let fix = finding.fix { console.print("      \(String(repeating: " ", count: 12))fix: \(fix)") }
    }

    /// Credentials, server, login and clock. Returns whether the store cannot be used at all.
    private static func checkServer(_ url: URL, context: RunContext, report: (Finding) -> Void) throws -> Bool {
        let resolved = WebDAVCredentials.resolveWithSource(
            for: url, environment: context.environment, netrcPath: context.home + "/.netrc")
        if let resolved {
            report(
                Finding(
                    check: "credentials", outcome: .ok,
                    detail: "user '\(resolved.credentials.user)' from \(resolved.source)"))
        } else {
            report(
                Finding(
                    check: "credentials", outcome: .warning, detail: "none found; trying without",
                    fix: "set AGGCTL_WEBDAV_USER and AGGCTL_WEBDAV_PASSWORD, or add the host to ~/.netrc"))
        }
        // No retries: the doctor reports what one attempt meets, at once.
        let client = try context.httpClient(credentials: resolved?.credentials, retry: .never)
        let request = HTTPRequest(method: "OPTIONS", url: StoreLocation.redacting(url))
        let started = Date()
        let response: HTTPResponse
        do {
            response = try client.send(request)
        } catch let error as HTTPError {
            let fix: String
            switch error.kind {
            case .timeout:
                fix = "the server accepted the connection but did not answer; check it, or raise AGGCTL_HTTP_TIMEOUT"
            case .tls: fix = "check the server's certificate; for a private CA set AGGCTL_CA_FILE to its PEM file"
            default: fix = "check the host and port in the URL, and that the server is running"
            }
            report(Finding(check: "server", outcome: .failed, detail: error.message, fix: fix))
            return true
        }
        let milliseconds = Int(Date().timeIntervalSince(started) * 1000)
        if let refused = loginRefused(response.status, source: resolved?.source) {
            report(refused)
            return true
        }
        switch response.status {
        case 500...:
            report(
                Finding(
                    check: "server", outcome: .failed, detail: "answered OPTIONS with HTTP \(response.status)",
                    fix: "look at the server's error log"))
            return true
        default:
            if let dav = response.headers["dav"] {
                report(Finding(check: "server", outcome: .ok, detail: "answered in \(milliseconds) ms, WebDAV \(dav)"))
            } else {
                report(
                    Finding(
                        check: "server", outcome: .warning,
                        detail: "answered in \(milliseconds) ms (HTTP \(response.status)) without a DAV header",
                        fix: "make sure the URL points at a WebDAV collection, not a web page"))
            }
            if let failed = checkLogin(url, client: client, source: resolved?.source, report: report), failed {
                return true
            }
        }
        if let serverDate = response.date {
            report(
                clockFinding(offset: context.clock().timeIntervalSince(serverDate), against: "the server's Date header")
            )
        }
        return false
    }

    /// The login, judged by what needs it: some servers (rclone) answer OPTIONS to anyone, so only an
    /// authenticated PROPFIND of the collection tells. Returns whether it failed, nil when it could not
    /// tell (the listing check says more).
    private static func checkLogin(
        _ url: URL, client: HTTPClient, source: String?, report: (Finding) -> Void
    ) -> Bool? {
        let request = HTTPRequest(
            method: "PROPFIND", url: StoreLocation.redacting(url), headers: [("Depth", "0")],
            body: Data(
                #"<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:prop><D:resourcetype/></D:prop></D:propfind>"#
                    .utf8))
        guard let response = try? client.send(request) else { return nil }
        if let refused = loginRefused(response.status, source: source) {
            report(refused)
            return true
        }
        switch response.status {
        case 207, 404:
            report(
                Finding(
                    check: "login", outcome: .ok,
                    detail: source == nil ? "none needed (a listing was answered without one)" : "accepted"))
            return false
        default:
            return nil
        }
    }

    /// The failed login a 401 or 403 means (credentials from `source`), nil for any other status.
    private static func loginRefused(_ status: Int, source: String?) -> Finding? {
        switch status {
        case 401:
            return Finding(
                check: "login", outcome: .failed, detail: "the server refused the user name or password (HTTP 401)",
                fix: "check the password in \(source ?? "AGGCTL_WEBDAV_PASSWORD or ~/.netrc")")
        case 403:
            return Finding(
                check: "login", outcome: .failed, detail: "the server forbids this user the store (HTTP 403)",
                fix: "give the user access to the collection on the server")
        default:
            return nil
        }
    }

    /// Whether the folder or its parent exists. Returns whether the store cannot be used at all.
    private static func checkFolder(_ path: String, report: (Finding) -> Void) -> Bool {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
            guard isFolder.boolValue else {
                report(
                    Finding(
                        check: "folder", outcome: .failed, detail: "'\(path)' is not a folder",
                        fix: "point --store at a folder"))
                return true
            }
            report(Finding(check: "folder", outcome: .ok, detail: "exists"))
            return false
        }
        let parent = (path as NSString).deletingLastPathComponent
        guard FileManager.default.fileExists(atPath: parent.isEmpty ? "." : parent) else {
            report(
                Finding(
                    check: "folder", outcome: .failed, detail: "neither '\(path)' nor its parent exists",
                    fix: "create '\(parent)' (or mount the shared folder) first"))
            return true
        }
        return false  // the listing says it does not exist yet
    }

    /// Reads every record, as `status` would. Returns whether the store exists.
    private static func checkListing(_ store: any SnapshotStore, report: (Finding) -> Void) -> Bool {
        do {
            let contents = try store.readContents()
            let records = contents.records.count
            let unusable = Set(contents.problems.map(\.file)).count
            let counted = "\(records) record\(records == 1 ? "" : "s")"
            if contents.problems.isEmpty {
                report(Finding(check: "listing", outcome: .ok, detail: counted))
            } else {
                report(
                    Finding(
                        check: "listing", outcome: .warning,
                        detail: "\(counted), and \(unusable) file\(unusable == 1 ? "" : "s") with problems",
                        fix: "status shows the rest; fix or remove the files below"))
                for problem in contents.problems.prefix(10) {
                    report(Finding(check: "record", outcome: .warning, detail: "'\(problem.file)': \(problem.reason)"))
                }
            }
            return true
        } catch SnapshotStoreError.storeMissing {
            report(
                Finding(
                    check: "listing", outcome: .warning, detail: "the store does not exist yet",
                    fix: "the first publish creates it"))
            return false
        } catch {
            report(
                Finding(
                    check: "listing", outcome: .failed, detail: "\(error)", fix: "check read permission on the store"))
            return true
        }
    }

    /// Writes, reads back and removes a probe record.
    private static func checkWrite(
        _ store: any SnapshotStore, location: StoreLocation, clock: () -> Date, report: (Finding) -> Void
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
                    Finding(
                        check: "write", outcome: .failed, detail: "a probe record read back different",
                        fix: "check the store's sync or caching"))
                return
            }
            try store.removeRecord(for: probe)
            let milliseconds = Int(Date().timeIntervalSince(started) * 1000)
            report(
                Finding(
                    check: "write", outcome: .ok,
                    detail: "wrote, read back and removed a probe record in \(milliseconds) ms"))
            if case .directory(let path) = location,
                let modified = try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
            {
                report(clockFinding(offset: written.timeIntervalSince(modified), against: "the folder's file times"))
            }
        } catch {
            report(
                Finding(
                    check: "write", outcome: .failed, detail: "\(error)",
                    fix: "the user needs permission to create, rename and delete files in the store"))
        }
    }

    /// This machine's clock against another's (`offset` = ours minus theirs).
    static func clockFinding(offset: TimeInterval, against reference: String) -> Finding {
        let seconds = Int(offset.rounded())
        guard abs(offset) > clockTolerance else {
            return Finding(check: "clock", outcome: .ok, detail: "within \(max(1, abs(seconds))) s of \(reference)")
        }
        return Finding(
            check: "clock", outcome: .warning,
            detail: "this machine is \(abs(seconds)) s \(seconds > 0 ? "ahead of" : "behind") \(reference)",
            fix: "run NTP (systemd-timesyncd, chrony) here or on the server; other machines flag skewed records")
    }
}
