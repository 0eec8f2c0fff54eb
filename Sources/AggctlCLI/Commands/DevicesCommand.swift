import Aggregator
import Portable
import Serialization
import Snapshots
import Stores

/// `aggctl devices`: which machines publish to the store, and which have stopped.
enum DevicesCommand {
    static let name: String = "devices"
    static let summary = "List the devices that publish to the store, when each last did, and which are stale."
    static let forget = FlagSpec.option(
        "forget", "ID", "remove this device's record (<ID>.json) from the store, asking nothing, and say so")
    static let newID = FlagSpec.toggle(
        "new-id", "give this machine a new device id (for a clone that publishes under another machine's), and say it")
    static let flags = [
        CommonFlags.store, CommonFlags.keyFile, CommonFlags.requireEncrypted, CommonFlags.json, forget, newID,
        CommonFlags.now, CommonFlags.staleAfter,
    ]
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
        /// The device whose record to remove, instead of listing.
        var forget: DeviceID?

        init(_ flags: ParsedFlags, context: RunContext) throws {
            merge = try MergeSettings(flags, context: context, command: name)
            json = flags.isSet(CommonFlags.json)
            forget = try flags.setting(DevicesCommand.forget).map(ValueParsers.deviceID)
        }
    }

    static func run(_ flags: ParsedFlags, context: RunContext) throws -> ExitStatus {
        // Needs no store: the id is this machine's.
        if flags.isSet(newID) { return try giveNewID(context: context) }
        let options = try Options(flags, context: context)
        if let device = options.forget { return try forget(device, options: options, context: context) }
        let (result, saveCache) = try context.merged(options.merge)
        let saving = DispatchGroup()
        DispatchQueue.global().async(group: saving) { saveCache() }
        defer { saving.wait() }
        if options.json {
            var json = StatusJSONWriter(streamingTo: context.console.output)
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

    /// Removes `<device>.json` from the store: a machine retired for good, whose stale record would
    /// otherwise stay in every listing. A record of that name that is not there is a failure (exit 1):
    /// nothing was removed, and the name may be mistyped.
    /// `--new-id`: the state directory's device id replaced by a new one. The record under the old id is
    /// left alone: it is the other machine's now.
    static func giveNewID(context: RunContext) throws -> ExitStatus {
        if let configured = context.configuration.setting("device-id") {
            throw UsageError(
                "--new-id: this machine's id comes from \(configured.source) ('\(configured.value)'); change it there",
                command: name)
        }
        let path = context.stateDirectory + "/" + DeviceIdentity.fileName
        let old = try? DeviceIdentity.existingOrPreview(stateDirectory: context.stateDirectory, hostName: "")
        if unlink(path) != 0 && errno != ENOENT {
            throw CommandFailure("cannot replace the device id '\(path)': \(String(cString: strerror(errno)))")
        }
        let fresh = try DeviceIdentity.loadOrCreate(
            stateDirectory: context.stateDirectory, hostName: context.hostName())
        let was = old.map {
            $0.rawValue.hasSuffix("-dryrun") ? "" : " (was '\($0)'; that record stays the other machine's)"
        }
        context.console.print(
            "this machine's device id is now '\(fresh)'\(was ?? ""); its next publish writes '\(fresh.recordName)'")
        return .success
    }

    static func forget(_ device: DeviceID, options: Options, context: RunContext) throws -> ExitStatus {
        let location = options.merge.location
        do {
            let store = try context.openStore(location)
            guard try store.listRecords().contains(where: { $0.name == device.recordName }) else {
                throw CommandFailure(
                    "no record '\(device.recordName)' in '\(location.displayName)'; nothing removed "
                        + "(aggctl devices lists the ids)")
            }
            try store.removeRecord(for: device)
        } catch let error as StoreError {
            throw CommandFailure(error.description)
        }
        context.console.print("removed '\(device.recordName)' from '\(location.displayName)'")
        return .success
    }
}
