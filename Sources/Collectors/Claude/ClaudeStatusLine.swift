import Portable
import Serialization
import Snapshots

/// The official figures Claude Code hands its status-line command: `rate_limits.five_hour` and
/// `rate_limits.seven_day` (`{used_percentage, resets_at}`, `resets_at` in epoch seconds), present for
/// subscribers after the first response (since 2.1.80). Its schema has the per-model weeks too
/// (`seven_day_opus`, `seven_day_sonnet`), which releases up to 2.1.237 leave out of what they hand over
/// (anthropics/claude-code#69791, #73770, #88111); any `seven_day_<model>` that comes is the limit
/// `<model>-weekly`, as the usage answer's.
///
/// `aggctl statusline` reads them from stdin and keeps them in the collector state
/// (`claude-statusline.json`), where `publish --source claude` finds them: exact windows without calling
/// the usage endpoint.
public struct ClaudeStatusLine: Sendable, Equatable {
    public var at: Date
    public var session: UsageWindow?
    public var weekly: UsageWindow?
    /// The per-model weeks handed over (`opus-weekly`, `sonnet-weekly`), in the order of their ids.
    public var limits: [Limit]
    /// The model Claude Code shows (`model.display_name`), for the line.
    public var model: String?

    public init(
        at: Date, session: UsageWindow?, weekly: UsageWindow?, limits: [Limit] = [], model: String? = nil
    ) {
        self.at = at
        self.session = session
        self.weekly = weekly
        self.limits = limits
        self.model = model
    }

    /// The figures in a status-line document, read at `now`; nil when it is not JSON. Windows missing
    /// or of the wrong shape are absent (one release sent no `rate_limits` at all).
    public static func parse(_ data: Data, now: Date) -> ClaudeStatusLine? {
        guard let document = data.withUnsafeBytes({ JSONValue.parse($0) }), case .object = document else { return nil }
        func window(_ key: String, minutes: Int) -> UsageWindow? {
            // What Claude Code hands over is held to what a record may carry (`ProviderUsage.admitted`): a
            // percent that is no percent (an epoch in the field, seen in the wild) is no figure, and a
            // reset outside 2000...2100 none.
            guard let object = document["rate_limits"]?[key], let used = object["used_percentage"]?.number,
                used.isFinite, (0...ProviderUsage.largestUsedPercent).contains(used)
            else { return nil }
            let reset = object["resets_at"]?.number.flatMap {
                $0.isFinite && (946_684_800..<4_102_444_800).contains($0) ? $0 : nil
            }
            return UsageWindow(
                usedPercent: used, windowMinutes: minutes, resetsAt: reset.map { Date(timeIntervalSince1970: $0) })
        }
        var limits: [Limit] = []
        if case .object(let members) = document["rate_limits"] {
            for key in members.keys.sorted() where key.hasPrefix("seven_day_") {
                let model = String(key.dropFirst("seven_day_".count))
                // Not a model: the week of apps signed in with the account, and the overage Claude Code
                // counts itself.
                guard !model.isEmpty, model.utf8.count <= 40, model != "oauth_apps", !model.hasPrefix("overage"),
                    isWord(model),
                    let week = window(key, minutes: 10_080)
                else { continue }
                let limit = Limit(modelWeekly: NamedWindow(name: model, window: week))
                guard Limit.problem(withID: limit.id) == nil, !limits.contains(where: { $0.id == limit.id }) else {
                    continue
                }
                limits.append(limit)
            }
        }
        return ClaudeStatusLine(
            at: now, session: window("five_hour", minutes: 300), weekly: window("seven_day", minutes: 10_080),
            limits: limits, model: document["model"]?["display_name"]?.string)
    }

    /// Letters, digits and `_` only: what a model's name in a key may hold, so that it is kept unescaped.
    static func isWord(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || scalar == "_"
        }
    }

    /// The state file in a collector state folder.
    public static func path(in stateFolder: String) -> String { stateFolder + "/claude-statusline.json" }

    /// The figures last kept in `stateFolder`; nil when there are none or the file is not readable.
    public static func load(from stateFolder: String) -> ClaudeStatusLine? {
        guard let data = FileSystem.contents(of: path(in: stateFolder)),
            let json = data.withUnsafeBytes({ JSONValue.parse($0) }),
            let at = json["at"]?.string.flatMap(RFC3339.parse)
        else { return nil }
        func window(_ key: String, minutes: Int) -> UsageWindow? {
            guard let used = json[key]?["usedPercent"]?.number else { return nil }
            return UsageWindow(
                usedPercent: used, windowMinutes: minutes,
                resetsAt: json[key]?["resetsAt"]?.string.flatMap(RFC3339.parse))
        }
        let limits = (json["limits"]?.array ?? []).compactMap { kept -> Limit? in
            guard let id = kept["id"]?.string, Limit.problem(withID: id) == nil, let label = kept["label"]?.string,
                isWord(label),
                let used = kept["usedPercent"]?.number
            else { return nil }
            return Limit(
                id: id, label: label, windowMinutes: 10_080, usedPercent: used,
                resetsAt: kept["resetsAt"]?.string.flatMap(RFC3339.parse))
        }
        return ClaudeStatusLine(
            at: at, session: window("session", minutes: 300), weekly: window("weekly", minutes: 10_080),
            limits: limits)
    }

    /// Keeps the windows in `stateFolder` (atomically; not flushed: losing them costs one update), unless
    /// the same windows are kept already: Claude Code runs the status line on every update.
    public func save(in stateFolder: String) throws {
        guard session != nil || weekly != nil || !limits.isEmpty else { return }
        if let kept = Self.load(from: stateFolder), kept.session == session, kept.weekly == weekly,
            kept.limits == limits, at.timeIntervalSince(kept.at) < 60
        {
            return
        }
        func window(_ window: UsageWindow?) -> String {
            guard let window else { return "null" }
            let reset = window.resetsAt.map { "\"\(RFC3339.format($0))\"" } ?? "null"
            return #"{"usedPercent":\#(window.usedPercent),"resetsAt":\#(reset)}"#
        }
        // Ids are `[a-z0-9-]` and labels the model's name in `[A-Za-z0-9_]` (held so on reading the
        // document and the kept file): nothing to escape.
        let kept = limits.map { limit in
            let reset = limit.resetsAt.map { "\"\(RFC3339.format($0))\"" } ?? "null"
            return
                #"{"id":"\#(limit.id)","label":"\#(limit.label)","usedPercent":\#(limit.usedPercent),"resetsAt":\#(reset)}"#
        }
        let text =
            #"{"at":"\#(RFC3339.format(at))","session":\#(window(session)),"weekly":\#(window(weekly)),"limits":[\#(kept.joined(separator: ","))]}"#
            + "\n"
        try AtomicFile.writePrivate(Data(text.utf8), to: Self.path(in: stateFolder))
    }
}
