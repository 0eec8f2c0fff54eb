import Aggregator
import Foundation
import Snapshots

/// `aggctl devices`: which machines publish to the store, and which have stopped.
enum DevicesCommand {
    static let name: String = "devices"
    static let summary = "List the devices that publish to the store, when each last did, and which are stale."
    static let flags = [CommonFlags.store, CommonFlags.json, CommonFlags.now, CommonFlags.staleAfter]
    static let details = """
        A device is stale when its record was generated longer ago than --stale-after (default 3600 s).
        --json prints {"now", "devices": [...], "problems": [...]} with the device objects of `status --json`.
        """

    static let command = Command(name: name, summary: summary, flags: flags, details: details) { flags, context in
        try run(flags, context: context)
    }

    /// `devices`'s options, settled before anything is read.
    struct Options: Equatable {
        var merge: MergeSettings
        var json: Bool

        init(_ flags: ParsedFlags, context: RunContext) throws {
            merge = try MergeSettings(flags, context: context, command: name)
            json = flags.isSet(CommonFlags.json)
        }
    }

    static func run(_ flags: ParsedFlags, context: RunContext) throws -> ExitStatus {
        let options = try Options(flags, context: context)
        let (result, saveCache) = try StatusCommand.merge(options.merge, context: context)
        let saving = DispatchGroup()
        DispatchQueue.global().async(group: saving) { saveCache() }
        defer { saving.wait() }
        if options.json {
            var json = JSONWriter(streamingTo: context.console.output)
            StatusReport.devices(result, to: &json)
            json.finish()
            return .success
        }
        if result.devices.isEmpty {
            context.console.print("no devices in the store")
        } else {
            var table = TextTable(headers: ["DEVICE", "NAME", "PUBLISHED", "PROVIDERS", "VERSION", "NOTE"])
            for device in result.devices {
                table.rows.append([
                    TextTable.Cell(device.deviceID.rawValue),
                    TextTable.Cell(device.deviceName),
                    TextTable.Cell(
                        HumanFormat.ago(device.generatedAt, now: result.now), color: device.stale ? .dim : nil),
                    TextTable.Cell(String(device.providerCount)),
                    TextTable.Cell(device.appVersion ?? "-"),
                    TextTable.Cell(device.stale ? "stale" : "", color: .yellow),
                ])
            }
            context.console.printRendered(table.render(color: context.console.usesColor))
        }
        StatusCommand.report(result.problems, on: context.console)
        return .success
    }
}
