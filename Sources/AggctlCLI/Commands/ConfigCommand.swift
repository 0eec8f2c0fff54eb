import Aggregator
import HTTP
import Portable
import Snapshots

/// `aggctl config`: the settings in effect, and where each came from. Secrets are masked: a store URL's
/// password, a webhook's path and query.
enum ConfigCommand {
    static let name: String = "config"
    static let summary =
        "Show the settings in effect and where each came from (the environment, the config file, a default)."
    static let details = """
        The config file is $XDG_CONFIG_HOME/aggctl/config (~/.config/aggctl/config): one `key = value` a line,
        `#` comments, `~/` and $HOME expanded; keys: store, device-id, device-name, stale-after, max-skew,
        source, notify, warn-at, state-dir, interval, key-file, budget, tz (source, notify, key-file and budget
        on as many lines as wanted, one value each). Flags given to a command win over all of these. `aggctl init --write` writes it.
        """
    static let command: Command = Command(name: name, summary: summary, flags: [], details: details) { _, context in
        var table = TextTable(headers: ["KEY", "VALUE", "FROM", "NOTE"])
        let none = ParsedFlags()
        let environmentNames = ["store": "AGGCTL_STORE"]
        let defaults = [
            "stale-after": "\(Int(MergeOptions.defaultStaleAfter))", "max-skew": "\(Int(MergeOptions.defaultMaxSkew))",
            "state-dir": context.stateDirectory, "interval": "60", "device-name": context.hostName(),
            "notify": "desktop where reachable, else stdout",
        ]
        for key in Configuration.keys.sorted() {
            let spec = FlagSpec.option(key, "V", "")
            let setting = context.setting(spec, flags: none, environmentName: environmentNames[key])
            var value = setting?.value ?? defaults[key] ?? "-"
            // A key on several lines: each of its values, in order.
            if setting?.source.isConfig == true, Configuration.repeatableKeys.contains(key) {
                value = context.configuration.settings(key).map { Configuration.shown($0.value, key: key) }
                    .joined(separator: ", ")
            } else {
                value = Configuration.shown(value, key: key)
            }
            var source = setting.map { "\($0.source)" + ($0.source.isConfig ? " of '\(context.configFile)'" : "") }
            if key == "device-id", setting == nil {
                let kept = try? DeviceIdentity.existingOrPreview(
                    stateDirectory: context.stateDirectory, hostName: context.hostName()
                ).rawValue
                value = kept.map { $0.hasSuffix("-dryrun") ? "none yet (the first publish creates it)" : $0 } ?? "-"
                // Kept in the state directory, not a default: it is this machine's own.
                if let kept, !kept.hasSuffix("-dryrun") {
                    source = "'\(context.stateDirectory)/\(DeviceIdentity.fileName)'"
                }
            }
            // A value that commands would refuse is shown as such, never as if in effect.
            let note = setting.flatMap { invalidity(of: $0, key: key) } ?? ""
            table.rows.append([
                TextTable.Cell(key), TextTable.Cell(value),
                TextTable.Cell(source ?? "default", limit: TextTable.noteWidth),
                TextTable.Cell(note, color: note.isEmpty ? nil : .red, limit: TextTable.noteWidth),
            ])
        }
        context.console.printRendered(table.render(color: context.console.usesColor))
        return .success
    }
}

/// Why a configured value is not in effect (what a command given it would say), or nil when it is valid.
private func invalidity(of setting: Setting, key: String) -> String? {
    do {
        switch key {
        case "stale-after", "max-skew", "interval": _ = try ValueParsers.seconds(setting)
        case "warn-at": _ = try CheckCommand.parseThresholds(setting)
        case "budget":
            if case .failure(let error) = Budget.parse(setting.value) { return "not in effect: \(error)" }
        case "device-id":
            if DeviceID(rawValue: setting.value) == nil {
                return "not in effect: '\(setting.value)' is not a device id (1-128 of A-Z a-z 0-9 . _ -)"
            }
        default: break
        }
        return nil
    } catch let error as UsageError {
        return "not in effect: " + error.message
    } catch {
        return "not in effect: \(error)"
    }
}

extension OptionSource {
    var isConfig: Bool {
        if case .config = self { return true }
        return false
    }
}
