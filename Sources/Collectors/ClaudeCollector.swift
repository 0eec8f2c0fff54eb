import CShims
import Foundation
import Snapshots

/// What this machine's Claude Code logs say: tokens and cost per UTC day, and a session window that a
/// "usage limit reached" message marks as used up (`publish --source claude[:CONFIG_DIR]`).
///
/// Reads `projects/**/*.jsonl` under each config folder. One API response can be logged over several
/// lines (one per content block) with the same `message.id` and `requestId`: it is counted once, the
/// first line winning. Tokens are input + output + cache creation + cache read; cost is the line's
/// `costUSD` when it has one, else the price table (`ClaudePrice`). Logs alone do not tell how much of a
/// window is used, so the session window appears only while a limit message's reset time is ahead.
public struct ClaudeCollector: Sendable {
    public let folders: [String]

    public init(folders: [String]) {
        self.folders = folders
    }

    /// `$CLAUDE_CONFIG_DIR`, else those of `~/.config/claude` and `~/.claude` that exist.
    public static func defaultFolders(environment: [String: String]) -> [String] {
        if let folder = environment["CLAUDE_CONFIG_DIR"], !folder.isEmpty { return [folder] }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return [home + "/.config/claude", home + "/.claude"].filter { FileManager.default.fileExists(atPath: $0) }
    }

    struct Scan {
        var seen: Set<String> = []
        var tokensByDay: [String: Int] = [:]
        var costByDay: [String: Double] = [:]
        var newest: Date?
        /// The latest reset time announced by a "usage limit reached" message.
        var limitResetsAt: Date?
    }

    public func collect(now: Date) throws -> ProviderUsage {
        let files = folders.flatMap { folder -> [String] in
            let projects = folder + "/projects"
            guard let walker = FileManager.default.enumerator(atPath: projects) else { return [] }
            return walker.compactMap { ($0 as? String).flatMap { $0.hasSuffix(".jsonl") ? projects + "/" + $0 : nil } }
        }.sorted()
        guard !files.isEmpty else {
            throw CollectorError(
                "no Claude Code logs in \(folders.isEmpty ? "~/.config/claude or ~/.claude" : folders.map { "'\($0)'" }.joined(separator: ", "))"
            )
        }
        var scan = Scan()
        for file in files {
            try LineChunks.forEachPiece(of: file) { scan.read($0) }
        }
        let today = RFC3339.utcDay(now)
        let firstDay = RFC3339.utcDay(now.addingTimeInterval(-29 * 86_400))
        let days = scan.tokensByDay.keys.filter { $0 >= firstDay && $0 <= today }.sorted()
        var entry = ProviderUsage(
            providerID: "claude", lastUpdated: scan.newest ?? now,
            tokens: TokenUsage(
                today: scan.tokensByDay[today] ?? 0, last30Days: days.reduce(0) { $0 + scan.tokensByDay[$1]! },
                daily: days.map { DailyTokens(date: $0, tokens: scan.tokensByDay[$0]!, costUSD: scan.costByDay[$0]) }),
            costUSD: CostUsage(
                today: scan.costByDay[today] ?? 0, last30Days: days.reduce(0) { $0 + (scan.costByDay[$1] ?? 0) }))
        if let resetsAt = scan.limitResetsAt, resetsAt > now {
            entry.session = UsageWindow(usedPercent: 100, windowMinutes: 300, resetsAt: resetsAt)
        }
        return entry
    }
}

extension ClaudeCollector.Scan {
    /// Adds the usage lines and limit messages of one log file.
    mutating func read(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        var start = 0
        while start < bytes.count {
            var end = start
            if let newline = memchr(base + start, 0x0A, bytes.count - start) {
                end = base.distance(to: UnsafeRawPointer(newline))
            } else {
                end = bytes.count
            }
            let line = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
            if contains(line, "\"usage\"") || contains(line, "usage limit reached") {
                if let event = JSONValue.parse(line) { record(event) }
            }
            start = end + 1
        }
    }

    private func contains(_ line: UnsafeRawBufferPointer, _ text: StaticString) -> Bool {
        guard let base = line.baseAddress else { return false }
        return aggctl_memmem(base, line.count, text.utf8Start, text.utf8CodeUnitCount) != nil
    }

    mutating func record(_ event: JSONValue) {
        guard event["type"]?.string == "assistant", let message = event["message"],
            let at = event["timestamp"]?.string.flatMap(RFC3339.parse)
        else { return }
        if case .array(let blocks)? = message["content"] {
            for block in blocks {
                guard let text = block["text"]?.string, let marker = text.range(of: "usage limit reached|") else {
                    continue
                }
                if let epoch = Double(text[marker.upperBound...].prefix { $0.isNumber }) {
                    let reset = Date(timeIntervalSince1970: epoch)
                    if limitResetsAt.map({ reset > $0 }) ?? true { limitResetsAt = reset }
                }
            }
        }
        guard let usage = message["usage"] else { return }
        let key = (message["id"]?.string ?? "") + ":" + (event["requestId"]?.string ?? "")
        guard seen.insert(key).inserted else { return }
        if newest.map({ at > $0 }) ?? true { newest = at }
        func count(_ name: String) -> Int { Int(usage[name]?.number ?? 0) }
        let input = count("input_tokens")
        let output = count("output_tokens")
        let cacheWrite = count("cache_creation_input_tokens")
        let cacheRead = count("cache_read_input_tokens")
        let day = RFC3339.utcDay(at)
        tokensByDay[day, default: 0] += input + output + cacheWrite + cacheRead
        let cost =
            event["costUSD"]?.number
            ?? ClaudePrice.price(of: message["model"]?.string ?? "")?.cost(
                input: input, output: output, cacheWrite: cacheWrite, cacheRead: cacheRead) ?? 0
        costByDay[day, default: 0] += cost
    }
}
