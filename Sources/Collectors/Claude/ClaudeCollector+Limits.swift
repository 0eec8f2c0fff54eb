import Portable
import Serialization
import Snapshots

/// The limits Claude Code's limit messages name, and how the scans keep them.
extension ClaudeCollector {
    /// What a limit message says is used up.
    enum LimitKind: Equatable {
        case session, weekly
        /// A model's own weekly limit: "opus", "sonnet".
        case model(String)
        /// A spend limit in money: "monthly spend limit", "individual spend limit".
        case spend(String)
    }

    /// The limit a message names, in the wordings of 2026: "You've hit your session limit", "... your
    /// limit", "... your weekly limit", "... your Opus limit" / "Sonnet limit" (the model's week),
    /// "... your monthly spend limit" / "individual spend limit" / "contact your admin to increase it"
    /// (a spend limit). Anything else is the session's.
    static func limitKind(of text: String) -> LimitKind {
        let lower = text.lowercased()
        if lower.contains("spend limit") || lower.contains("contact your admin") {
            if lower.contains("individual spend limit") { return .spend("individual spend limit") }
            if lower.contains("monthly spend limit") { return .spend("monthly spend limit") }
            return .spend("spend limit")
        }
        for model in ["opus", "sonnet", "haiku"] where lower.contains("your \(model) limit") { return .model(model) }
        if lower.contains("weekly limit") { return .weekly }
        return .session
    }

    /// The models' own weeks a message used up and that have not reset: each with the reset it gave,
    /// or (without one) for a week after the message.
    static func modelWindows(_ scan: Scan, now: Date) -> [NamedWindow]? {
        var windows: [NamedWindow] = []
        for name in Set(scan.modelResets.keys).union(scan.modelLimitsAt.keys).sorted() {
            if let reset = scan.modelResets[name], reset > now {
                windows.append(
                    NamedWindow(
                        name: name, window: UsageWindow(usedPercent: 100, windowMinutes: 10_080, resetsAt: reset)))
            } else if let at = scan.modelLimitsAt[name], now.timeIntervalSince(at) < 7 * 86_400 {
                windows.append(
                    NamedWindow(name: name, window: UsageWindow(usedPercent: 100, windowMinutes: 10_080, resetsAt: nil))
                )
            }
        }
        return windows.isEmpty ? nil : windows
    }

    /// Keeps the later of each model's limit and of the spend limit.
    static func raise(
        _ resets: inout [String: Date], _ reached: inout [String: Date], _ spend: inout (at: Date, what: String)?,
        with file: FileScan
    ) {
        for (name, reset) in file.modelResets { resets[name].raise(to: reset) }
        for (name, at) in file.modelLimitsAt { reached[name].raise(to: at) }
        if let later = file.spendLimit, spend.map({ later.at > $0.at }) ?? true { spend = later }
    }

    static func encodeLimits(
        _ resets: [String: Date], _ reached: [String: Date], _ spend: (at: Date, what: String)?,
        into out: inout BinaryWriter
    ) {
        for table in [resets, reached] {
            out.u32(UInt32(table.count))
            for (name, date) in table.sorted(by: { $0.key < $1.key }) {
                out.string(name)
                out.date(date)
            }
        }
        out.optional(spend) { out, spend in
            out.date(spend.at)
            out.string(spend.what)
        }
    }

    static func decodeLimits(from input: inout BinaryReader) throws -> (
        [String: Date], [String: Date], (at: Date, what: String)?
    ) {
        var tables: [[String: Date]] = []
        for _ in 0..<2 {
            var table: [String: Date] = [:]
            for _ in 0..<(try input.count()) { table[try input.string()] = try input.date() }
            tables.append(table)
        }
        let spend = try input.optional { reader in (at: try reader.date(), what: try reader.string()) }
        return (tables[0], tables[1], spend)
    }
}
