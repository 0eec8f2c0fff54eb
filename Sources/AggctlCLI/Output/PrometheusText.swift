import Aggregator
import Portable
import Snapshots
import TextSafety

/// The merged view as Prometheus text exposition (`export --format prometheus`, docs/prometheus.md): every
/// metric family with its HELP and TYPE lines, gauges without timestamps (node_exporter's textfile
/// collector refuses a file with one), label values made one safe line that keeps every two values apart
/// (`SafeText.reversible`, never cut: two accounts must never share a series) and then escaped as the
/// format says (`\\`, `\"`, `\n`).
enum PrometheusText {
    struct Sample {
        var labels: [(String, String)]
        var value: Double
    }

    static func render(_ result: MergeResult) -> String {
        var used: [Sample] = []
        var resets: [Sample] = []
        var depleted: [Sample] = []
        var updated: [Sample] = []
        var tokens: [Sample] = []
        var cost: [Sample] = []
        var blocked: [Sample] = []
        for account in result.accounts {
            var labels = [("provider", account.providerID), ("account", account.key.normalizedEmail ?? "")]
            if account.key.normalizedEmail == nil { labels.append(("device", account.deviceID.rawValue)) }
            // A limit named like another window would repeat a series: the first stands. A due window's
            // figures are not current, and are left out.
            var named = Set<String>()
            for (name, window) in account.windows where !window.due && named.insert(name).inserted {
                let windowLabels = labels + [("window", name)]
                // Above 1 for a provider's overage.
                used.append(Sample(labels: windowLabels, value: max(0, window.usedPercent / 100)))
                if let resetsAt = window.resetsAt {
                    resets.append(Sample(labels: windowLabels, value: resetsAt.timeIntervalSince1970.rounded(.down)))
                }
                depleted.append(Sample(labels: windowLabels, value: window.level == .depleted ? 1 : 0))
            }
            updated.append(Sample(labels: labels, value: account.lastUpdated.timeIntervalSince1970.rounded(.down)))
            blocked.append(Sample(labels: labels, value: account.blocked ? 1 : 0))
            if let today = account.tokens?.today { tokens.append(Sample(labels: labels, value: Double(today))) }
            if let today = account.costUSD?.today { cost.append(Sample(labels: labels, value: today)) }
        }
        let devices = result.devices.map {
            Sample(
                labels: [("device", $0.deviceID.rawValue)], value: $0.generatedAt.timeIntervalSince1970.rounded(.down))
        }
        var text = ""
        func family(_ name: String, _ help: String, _ samples: [Sample]) {
            text += "# HELP \(name) \(help)\n# TYPE \(name) gauge\n"
            for sample in samples {
                let labels = sample.labels.map { "\($0.0)=\"\(escape($0.1))\"" }.joined(separator: ",")
                text += labels.isEmpty ? name : "\(name){\(labels)}"
                text += " " + number(sample.value) + "\n"
            }
        }
        family("aggctl_quota_used_ratio", "Used share of a quota window, 0 to 1 (above 1 for overage).", used)
        family("aggctl_quota_resets_at_timestamp_seconds", "When a quota window resets, Unix seconds.", resets)
        family("aggctl_quota_depleted", "1 when a quota window is used up, else 0.", depleted)
        family(
            "aggctl_account_last_updated_timestamp_seconds", "When the account's figures were read, Unix seconds.",
            updated)
        family("aggctl_tokens_today", "Tokens today (UTC), summed over the account's devices.", tokens)
        family("aggctl_cost_today_usd", "Cost today (UTC) in US dollars, summed over the account's devices.", cost)
        family(
            "aggctl_device_last_published_timestamp_seconds", "When a device last published its record, Unix seconds.",
            devices)
        family(
            "aggctl_account_blocked",
            "1 while the session, the weekly window or a binding limit is used up: nothing can be used.", blocked)
        family(
            "aggctl_record_problems", "Records or entries in the store that could not be read as they are.",
            [Sample(labels: [], value: Double(result.problems.count))])
        return text
    }

    /// A label value: one safe line that tells every two values apart, then the exposition format's escapes.
    static func escape(_ value: String) -> String {
        var out = ""
        for character in SafeText.reversible(value) {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    /// Whole numbers without a fraction, others in Swift's shortest round-tripping form.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "NaN" : (value > 0 ? "+Inf" : "-Inf") }
        return value.plainText
    }
}
