import Foundation
import TestSupport
import Testing

/// Machines in a temporary folder, each with a home, state and config of its own and the Claude Code
/// logs of a corpus case (`Tests/CollectorsTests/RealWorld/claude/<case>`, whose expected tokens and
/// dollars cite where they come from), publishing to one store: what the ledger's tests run as people do.
struct CorpusMachines {
    let root: TemporaryDirectory
    static let now = "2026-11-30T12:00:00Z"

    init(_ name: String) {
        root = TemporaryDirectory(name)
    }

    var store: String { root.file("store") }

    func environment(_ machine: String) -> [String: String] {
        [
            "HOME": root.file(machine + "/home"), "XDG_STATE_HOME": root.file(machine + "/state"),
            "XDG_CONFIG_HOME": root.file(machine + "/config"), "PATH": "/usr/bin:/bin", "TZ": "UTC",
        ]
    }

    /// A corpus case's logs as `machine`'s Claude folder.
    func claudeLogs(_ corpusCase: String, on machine: String) throws -> String {
        let folder = root.file(machine + "/claude")
        try FileManager.default.createDirectory(atPath: root.file(machine), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.corpus(corpusCase), toPath: folder)
        return folder
    }

    /// `publish` of `logs` (a Claude folder) as device `machine`.
    func publish(_ machine: String, logs: String, now: String = Self.now, extra: [String] = []) throws {
        let run = try BinaryRun.run(
            ["publish", "--store", store, "--device-id", machine, "--source", "claude:\(logs)", "--now", now] + extra,
            environment: environment(machine))
        #expect(run.status == 0, "\(run.errors)")
    }

    /// A corpus case's logs published as device `machine`.
    func publish(_ machine: String, corpusCase: String, extra: [String] = []) throws {
        try publish(machine, logs: try claudeLogs(corpusCase, on: machine), extra: extra)
    }

    static func corpus(_ corpusCase: String) -> String {
        Repository.path("Tests/CollectorsTests/RealWorld/claude/\(corpusCase)")
    }

    /// The tokens and dollars the case's `expected.json` gives.
    static func expected(_ corpusCase: String) throws -> (tokens: Int, cost: Double) {
        let data = try Data(contentsOf: URL(fileURLWithPath: corpus(corpusCase) + "/expected.json"))
        let document = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        return (document["tokens"] as! Int, document["costUSD"] as! Double)
    }
}
