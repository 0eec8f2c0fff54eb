import Aggregator
import Portable
import Serialization
import Snapshots
import TextSafety

/// The merged view as Prometheus text exposition (`export --format prometheus`, docs/prometheus.md): every
/// metric family with its HELP and TYPE lines, gauges without timestamps (node_exporter's textfile
/// collector refuses a file with one), label values made one safe line that keeps every two values apart
/// (`SafeText.reversible`, never cut: two accounts must never share a series) and then escaped as the
/// format says (`\\`, `\"`, `\n`).
enum PrometheusText {
    /// One account's figures as its series need them, its label set written once into a shared pool:
    /// escaping labels per series and family, and copying the account into each family's pass, was most
    /// of an export (19x a warm `status --json`); an array of bytes per series, freeing them most of the
    /// rest.
    struct Series {
        /// `provider="...",account="..."` in the pool.
        var labels: Range<Int>
        var lastUpdated: Double
        var tokensToday: Double?
        var costToday: Double?
        var blocked: Bool
        var windows: [Window]
    }

    struct Window {
        var name: String
        /// `,window="..."` in the pool.
        var label: Range<Int>
        var used: Double
        var resetsAt: Double?
        var depleted: Bool
    }

    /// The exposition text's bytes (UTF-8), written as they go (`ByteOutput`): no string made for a line or a
    /// whole number.
    static func render(_ result: MergeResult) -> [UInt8] {
        var pool: [UInt8] = []
        pool.reserveCapacity(80 * result.accounts.count)
        // By index, each field read in place: a copy of an account retains and releases all its fields.
        let accounts = result.accounts
        let series = accounts.indices.map { index in
            let start = pool.count
            label("provider", accounts[index].providerID, to: &pool, first: true)
            label("account", accounts[index].key.normalizedEmail ?? "", to: &pool)
            if accounts[index].key.normalizedEmail == nil {
                label("device", accounts[index].deviceID.rawValue, to: &pool)
            }
            let labels = start..<pool.count
            // A limit named like another window would repeat a series: the first stands. A due window's
            // figures are not current, and are left out.
            var windows: [Window] = []
            func add(_ name: String, _ window: WindowStatus) {
                guard !window.due, !windows.contains(where: { $0.name == name }) else { return }
                let start = pool.count
                label("window", name, to: &pool)
                windows.append(
                    Window(
                        // Above 1 for a provider's overage.
                        name: name, label: start..<pool.count, used: max(0, window.usedPercent / 100),
                        resetsAt: window.resetsAt?.timeIntervalSince1970.rounded(.down),
                        depleted: window.level == .depleted))
            }
            // The order of `MergedAccount.windows`: session, weekly, then each limit.
            if let session = accounts[index].session { add("session", session) }
            if let weekly = accounts[index].weekly { add("weekly", weekly) }
            if let limits = accounts[index].limits {
                for limit in limits { add(limit.id, limit.window) }
            }
            return Series(
                labels: labels, lastUpdated: accounts[index].lastUpdated.timeIntervalSince1970.rounded(.down),
                tokensToday: accounts[index].tokens?.today.map(Double.init), costToday: accounts[index].costUSD?.today,
                blocked: accounts[index].blocked, windows: windows)
        }
        let deviceLabels = result.devices.map { device in
            let start = pool.count
            label("device", device.deviceID.rawValue, to: &pool, first: true)
            return start..<pool.count
        }
        // Read-only from here: a variable captured by the writers below is checked for overlapping access
        // on every read (a twentieth of an export at 10 000 records).
        let labelPool = pool
        let text = ByteOutput(capacity: 200 * series.count * 4 + 80 * result.devices.count, sink: nil)
        func put(_ bytes: [UInt8], _ range: Range<Int>? = nil) {
            bytes.withUnsafeBufferPointer { all in
                let range = range ?? 0..<all.count
                if let base = all.baseAddress { text.bytes(base + range.lowerBound, range.count) }
            }
        }
        func header(_ name: String, _ help: String) {
            var header = "# HELP \(name) \(help)\n# TYPE \(name) gauge\n"
            header.withUTF8 { text.pass(UnsafeRawBufferPointer($0)) }
        }
        func line(_ name: [UInt8], _ labels: Range<Int>, _ more: Range<Int>? = nil, value: Double) {
            put(name)
            if !labels.isEmpty {
                text.byte(UInt8(ascii: "{"))
                put(labelPool, labels)
                if let more { put(labelPool, more) }
                text.byte(UInt8(ascii: "}"))
            }
            text.byte(UInt8(ascii: " "))
            // Whole numbers (nearly every value: times, counts, 0 and 1) digit by digit, no string made.
            if value == value.rounded(), abs(value) < 1e15 {
                text.integer(Int(value))
            } else if value.isFinite {
                text.fraction(value)
            } else {
                put(Array(number(value).utf8))
            }
            text.byte(UInt8(ascii: "\n"))
        }
        /// A family of one series a window of every account (`value` nil: none for that window).
        func windowFamily(_ name: String, _ help: String, _ value: (Window) -> Double?) {
            header(name, help)
            let name = Array(name.utf8)
            for account in series {
                for window in account.windows {
                    if let value = value(window) { line(name, account.labels, window.label, value: value) }
                }
            }
        }
        /// A family of one series an account.
        func accountFamily(_ name: String, _ help: String, _ value: (Series) -> Double?) {
            header(name, help)
            let name = Array(name.utf8)
            for account in series {
                if let value = value(account) { line(name, account.labels, value: value) }
            }
        }
        windowFamily("aggctl_quota_used_ratio", "Used share of a quota window, 0 to 1 (above 1 for overage).") {
            $0.used
        }
        windowFamily("aggctl_quota_resets_at_timestamp_seconds", "When a quota window resets, Unix seconds.") {
            $0.resetsAt
        }
        windowFamily("aggctl_quota_depleted", "1 when a quota window is used up, else 0.") { $0.depleted ? 1 : 0 }
        accountFamily(
            "aggctl_account_last_updated_timestamp_seconds", "When the account's figures were read, Unix seconds."
        ) { $0.lastUpdated }
        accountFamily("aggctl_tokens_today", "Tokens today (UTC), summed over the account's devices.") {
            $0.tokensToday
        }
        accountFamily("aggctl_cost_today_usd", "Cost today (UTC) in US dollars, summed over the account's devices.") {
            $0.costToday
        }
        let published = "aggctl_device_last_published_timestamp_seconds"
        header(published, "When a device last published its record, Unix seconds.")
        let publishedName = Array(published.utf8)
        for (index, device) in result.devices.enumerated() {
            line(publishedName, deviceLabels[index], value: device.generatedAt.timeIntervalSince1970.rounded(.down))
        }
        accountFamily(
            "aggctl_account_blocked",
            "1 while the session, the weekly window or a binding limit is used up: nothing can be used."
        ) { $0.blocked ? 1 : 0 }
        header("aggctl_record_problems", "Records or entries in the store that could not be read as they are.")
        line(Array("aggctl_record_problems".utf8), 0..<0, value: Double(result.problems.count))
        var bytes: [UInt8] = []
        text.withBytes { bytes = Array($0) }
        return bytes
    }

    /// The month's spend from the ledger: `aggctl_cost_month_to_date_usd{provider,account}` (priced rows),
    /// `aggctl_tokens_month_to_date{provider,account,model}`, and `aggctl_budget_used_ratio{budget}`.
    static func spending(_ spending: MonthSpending) -> [UInt8] {
        var text: [UInt8] = []
        func header(_ name: String, _ help: String) {
            appendUTF8("# HELP \(name) \(help)\n# TYPE \(name) gauge\n", to: &text)
        }
        func line(_ name: String, _ labels: [(String, String)], _ value: Double) {
            appendUTF8(name, to: &text)
            text.append(UInt8(ascii: "{"))
            for (index, (key, value)) in labels.enumerated() { label(key, value, to: &text, first: index == 0) }
            appendUTF8("} " + number(value) + "\n", to: &text)
        }
        let rows = spending.table.rows
        header("aggctl_cost_month_to_date_usd", "This month's cost so far in US dollars (priced models), every device.")
        // By provider and account, summed over models in the table's order.
        var costs: [(provider: String, account: String, cost: Double?)] = []
        for row in rows {
            let (provider, account) = (row.keys[.provider] ?? "", row.keys[.account] ?? "")
            if costs.last.map({ $0.provider == provider && $0.account == account }) != true {
                costs.append((provider, account, nil))
            }
            if let cost = row.sums.costUSD { costs[costs.count - 1].cost = (costs[costs.count - 1].cost ?? 0) + cost }
        }
        for entry in costs.sorted(by: { ($0.provider, $0.account) < ($1.provider, $1.account) }) {
            if let cost = entry.cost {
                line("aggctl_cost_month_to_date_usd", [("provider", entry.provider), ("account", entry.account)], cost)
            }
        }
        header("aggctl_tokens_month_to_date", "This month's tokens so far, every device, by model.")
        for row in rows {
            line(
                "aggctl_tokens_month_to_date",
                [
                    ("provider", row.keys[.provider] ?? ""), ("account", row.keys[.account] ?? ""),
                    ("model", row.keys[.model] ?? ""),
                ],
                Double(row.sums.totalTokens))
        }
        if !spending.budgets.isEmpty {
            header("aggctl_budget_used_ratio", "This month's cost so far against a monthly budget (1 is all of it).")
            for standing in spending.budgets {
                line("aggctl_budget_used_ratio", [("budget", standing.budget.name)], standing.usedRatio)
            }
        }
        return text
    }

    /// `string`'s bytes appended, copied whole (appending a `String.UTF8View` goes a byte at a time).
    static func appendUTF8(_ string: String, to bytes: inout [UInt8]) {
        var string = string
        string.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// `name="value"` (escaped), after a comma unless `first`.
    static func label(_ name: String, _ value: String, to labels: inout [UInt8], first: Bool = false) {
        if !first { labels.append(UInt8(ascii: ",")) }
        appendUTF8(name, to: &labels)
        labels.append(UInt8(ascii: "="))
        labels.append(UInt8(ascii: "\""))
        appendUTF8(escape(value), to: &labels)
        labels.append(UInt8(ascii: "\""))
    }

    /// A label value: one safe line that tells every two values apart, then the exposition format's escapes.
    static func escape(_ value: String) -> String {
        // Printable ASCII without `\` or `"` is its own escape (what nearly every e-mail and id is).
        var plain = value
        let isPlain = plain.withUTF8 { bytes in
            bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") && $0 != UInt8(ascii: "\"") }
        }
        if isPlain { return value }
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
