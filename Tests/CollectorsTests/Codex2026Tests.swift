import Foundation
import Portable
import Snapshots
import TestSupport
import Testing

@testable import Collectors

/// The shapes Codex writes in 2026 (`Fixtures/codex-2026/<case>/`, synthetic), each with its expected
/// result in `expected.json`.
struct Codex2026Tests {
    static let root = Repository.path("Tests/CollectorsTests/Fixtures/codex-2026")
    static let cases = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).sorted()

    static func expected(_ name: String) throws -> [String: Any] {
        let data = try #require(FileManager.default.contents(atPath: "\(root)/\(name)/expected.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func check(_ window: UsageWindow?, against expected: Any?, _ label: String) {
        guard let expected = expected as? [String: Any] else {
            #expect(window == nil, "\(label) should be absent")
            return
        }
        #expect(window?.usedPercent == expected["usedPercent"] as? Double, "\(label) used percent")
        #expect(window?.windowMinutes == expected["windowMinutes"] as? Int, "\(label) length")
        if let local = expected["resetsAtLocal"] as? String {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = .current
            let parts = local.split(whereSeparator: { "- :".contains($0) }).compactMap { Int($0) }
            let wanted = calendar.date(
                from: DateComponents(year: parts[0], month: parts[1], day: parts[2], hour: parts[3], minute: parts[4]))
            #expect(window?.resetsAt == wanted, "\(label) reset")
        }
    }

    @Test("every 2026 shape gives its expected windows, tokens and reason", arguments: cases)
    func shape(_ name: String) throws {
        let expected = try Self.expected(name)
        // In the test process's own zone, as the binary reads it (TZ, else /etc/localtime).
        let zones = Zones.machine(environment: ProcessInfo.processInfo.environment)
        let entry = try CodexCollector(home: "\(Self.root)/\(name)", zones: zones).collect(
            now: Records.date("2026-11-30T12:00:00Z"))
        check(entry.session, against: expected["session"], "\(name): session")
        check(entry.weekly, against: expected["weekly"], "\(name): weekly")
        #expect(entry.tokens?.today == expected["tokens"] as? Int, "\(name): tokens")
        if let reason = expected["error"] as? String {
            #expect(entry.error?.hasPrefix(reason) == true, "\(name): \(entry.error ?? "no error")")
        } else {
            #expect(entry.error == nil, "\(name): \(entry.error ?? "")")
        }
        if let limits = expected["limits"] as? [[String: Any]] {
            #expect(entry.limits?.map(\.id) == limits.map { $0["id"] as? String })
            #expect(entry.limits?.map(\.usedPercent) == limits.map { $0["usedPercent"] as? Double })
            #expect(entry.limits?.map(\.binding) == limits.map { $0["binding"] as? Bool })
        }
    }

    @Test("limit times in words: Codex's, with and without a year, in the machine's zone")
    func codexRetryTime() throws {
        let utc = Zones.utc
        let at = Records.date("2026-08-07T20:00:00Z")
        #expect(
            CodexLimitMessage.retryTime(
                in: "You've hit your usage limit; try again at Aug 8th, 2026 8:16 AM.", after: at, zones: utc)
                == Records.date("2026-08-08T08:16:00Z"))
        let berlin = Zones(local: try #require(ZoneInfo.named("Europe/Berlin")))
        #expect(
            CodexLimitMessage.retryTime(in: "Try again at Aug 8th 8:16 PM.", after: at, zones: berlin)
                == Records.date("2026-08-08T18:16:00Z"))
        #expect(CodexLimitMessage.retryTime(in: "You've hit your usage limit.", after: at, zones: utc) == nil)
        #expect(CodexLimitMessage.retryTime(in: "try again at Smarch 40th", after: at, zones: utc) == nil)
    }
}
