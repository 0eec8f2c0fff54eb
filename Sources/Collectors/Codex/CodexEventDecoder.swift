import Portable
import Serialization
import Snapshots

/// Reads one Codex log line straight from its bytes: only what the collector needs, everything else
/// skipped (validated) by the scanner. A generic JSON tree allocated a dictionary per object and held the
/// scan to a fifth of this speed.
///
/// Three kinds of line matter: `event_msg` / `token_count` (tokens and rate limits), the newer top-level
/// `token_usage_record` (tokens of one response), and `event_msg` / `task_complete` whose
/// `codex_error_info` is `usage_limit_exceeded` (a limit hit, with the time to try again in words).
enum CodexEventDecoder: LogLineDecoder {
    enum Kind: Equatable {
        /// `turn_context`: the model the turns that follow use.
        case tokenCount, usageRecord, limitHit, turnContext
    }

    /// What a usage object says besides its total, as OpenAI bills it: `input_tokens` includes the
    /// cached ones, `output_tokens` the reasoning ones.
    struct Breakdown: Equatable, Sendable {
        var input = 0
        var cached = 0
        var output = 0
        /// The part of `output` that was reasoning (`reasoning_output_tokens`).
        var reasoning = 0

        /// What grew from `earlier` to this (a session's totals), never below 0.
        func growth(since earlier: Breakdown) -> Breakdown {
            Breakdown(
                input: max(input - earlier.input, 0), cached: max(cached - earlier.cached, 0),
                output: max(output - earlier.output, 0), reasoning: max(reasoning - earlier.reasoning, 0))
        }
    }

    struct Event {
        var kind: Kind
        var at: Date
        /// Tokens of the one response the line reports (`last_token_usage`, or the record's `usage`).
        var totalTokens: Int?
        /// The session's tokens so far (`total_token_usage`): what an event without `last_token_usage`
        /// is counted from, as its growth since the session's previous total.
        var cumulativeTokens: Int?
        var limits: Limits?
        /// The parts of `totalTokens` and `cumulativeTokens` (nil where the line gave none).
        var lastUsage: Breakdown?
        var cumulativeUsage: Breakdown?
        /// The model the line names (a `turn_context`'s, or the token count's own).
        var model: String?
        /// A usage record's `response_id`: the one response it counts, wherever it is copied.
        var responseID: String?
        /// A limit hit's message: "You've hit your usage limit; try again at Aug 8th, 2026 8:16 AM."
        var message: String?
    }

    /// A `rate_limits` object in any of the shapes Codex has written.
    struct Limits {
        var primary: Window?
        var secondary: Window?
        var plan: String?
        var limitID: String?
        var limitName: String?
        /// Non-null when a limit is reached, whatever the percentages say: `primary`, `secondary`, or a
        /// reason for the whole account (`workspace_owner_usage_limit_reached`, ...).
        var reachedType: String?
        var spendControlReached: Bool?
        var flatPrimaryUsed: Double?
        var flatSecondaryUsed: Double?
        var flatPrimaryMinutes: Int?
        var flatSecondaryMinutes: Int?
    }

    struct Window {
        var used: Double?
        var minutes: Int?
        var resetsAt: Double?
        var resetsInSeconds: Double?
    }

    /// The event of a line, or nil when the line is none of the three kinds.
    static func decode(_ line: UnsafeRawBufferPointer) -> Event? {
        var s = JSONScanner(line)
        var at: Date?
        var timestamp: JSONScanner.RawString?
        // Compared in place: a String for each line's type was a tenth of a cold scan.
        var isUsageRecord = false
        var isTurnContext = false
        var model: String?
        var lastUsage: Breakdown?
        var cumulativeUsage: Breakdown?
        var recordUsage: Breakdown?
        var payloadKind: Kind?
        var isTaskEnd = false
        var lastTotal: Int?
        var cumulative: Int?
        var limits: Limits?
        var responseID: String?
        var recordTotal: Int?
        var errorInfo: String?
        var message: String?
        do throws(JSONSyntaxError) {
            try object(&s) { (s, key) throws(JSONSyntaxError) in
                if s.key(key, is: "timestamp") {
                    // RFC 3339 text, or a number of seconds or milliseconds since 1970 (as some builds
                    // and tools write it).
                    if try s.kind() == .number {
                        at = try number(&s).flatMap(Self.epochDate)
                        return
                    }
                    timestamp = try raw(&s)
                    at = timestamp.flatMap { raw in
                        RFC3339.parse(
                            bytes: UnsafeRawBufferPointer(start: s.base + raw.start, count: raw.end - raw.start))
                    }
                } else if s.key(key, is: "type") {
                    if let kind = try raw(&s) {
                        isUsageRecord = s.key(kind, is: "token_usage_record")
                        isTurnContext = s.key(kind, is: "turn_context")
                    }
                } else if s.key(key, is: "payload") {
                    guard try s.kind() == .object else { return try s.skipValue() }
                    try object(&s) { (s, key) throws(JSONSyntaxError) in
                        if s.key(key, is: "type") {
                            if let kind = try raw(&s) {
                                if s.key(kind, is: "token_count") {
                                    payloadKind = .tokenCount
                                } else if s.key(kind, is: "task_complete") || s.key(kind, is: "error") {
                                    isTaskEnd = true
                                }
                            }
                        } else if s.key(key, is: "info") {
                            let info = try Self.totals(&s)
                            (lastTotal, cumulative) = (info.last?.total, info.cumulative?.total)
                            (lastUsage, cumulativeUsage) = (info.last?.parts, info.cumulative?.parts)
                            model = info.model ?? model
                        } else if s.key(key, is: "model") {
                            model = try text(&s)
                        } else if s.key(key, is: "rate_limits") {
                            limits = try rateLimits(&s)
                        } else if s.key(key, is: "response_id") {
                            responseID = try text(&s)
                        } else if s.key(key, is: "usage") {
                            let usage = try tokens(&s)
                            (recordTotal, recordUsage) = (usage?.total, usage?.parts)
                        } else if s.key(key, is: "error") {
                            (message, errorInfo) = try error(&s)
                        } else if s.key(key, is: "codex_error_info") {
                            errorInfo = try text(&s) ?? errorInfo
                        } else {
                            try s.skipValue()
                        }
                    }
                } else {
                    try s.skipValue()
                }
            }
            try s.finish()
        } catch {
            return nil
        }
        guard let at else { return nil }
        if isTurnContext {
            guard let model, !model.isEmpty else { return nil }
            return Event(kind: .turnContext, at: at, model: model)
        }
        if isUsageRecord {
            guard responseID != nil else { return nil }
            return Event(
                kind: .usageRecord, at: at, totalTokens: recordTotal, lastUsage: recordUsage, model: model,
                responseID: responseID)
        }
        if isTaskEnd {
            guard errorInfo == "usage_limit_exceeded" else { return nil }
            return Event(kind: .limitHit, at: at, message: message)
        }
        guard payloadKind == .tokenCount else { return nil }
        return Event(
            kind: .tokenCount, at: at, totalTokens: lastTotal, cumulativeTokens: cumulative, limits: limits,
            lastUsage: lastUsage, cumulativeUsage: cumulativeUsage, model: model)
    }

    /// A number of seconds since 1970, or of milliseconds when it is past any second of this era
    /// (1e11 seconds is the year 5138); nil outside 2000-2100, which no log line is from.
    static func epochDate(_ value: Double) -> Date? {
        let seconds = value > 1e11 ? value / 1000 : value
        guard seconds >= 946_684_800, seconds < 4_102_444_800 else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    /// The session a rollout was forked or spawned from, and when it began, from its `session_meta` line;
    /// nil for any other line and for a session of its own.
    ///
    /// A fork names its parent in `forked_from_id`; a sub-agent spawned by another thread
    /// (`thread_spawn`) in `parent_thread_id`, at the top of the payload or under
    /// `source.subagent.thread_spawn`. Both begin by replaying the parent's history.
    static func parentSession(_ line: UnsafeRawBufferPointer) -> (parent: String, startedAt: Date?)? {
        guard let meta = JSONValue.parse(line), meta["type"]?.string == "session_meta", let payload = meta["payload"]
        else { return nil }
        let spawn = payload["source"]?["subagent"]?["thread_spawn"]
        let candidates = [
            payload["forked_from_id"]?.string, payload["parent_thread_id"]?.string,
            spawn?["parent_thread_id"]?.string,
        ]
        guard let parent = candidates.compactMap({ $0 }).first(where: { !$0.isEmpty }) else { return nil }
        return (parent, (payload["timestamp"] ?? meta["timestamp"])?.string.flatMap(RFC3339.parse))
    }

    /// `info.last_token_usage` (the one response the event reports) and `info.total_token_usage` (the
    /// session's so far), each its total and parts, and `info.model` where the line names one.
    private static func totals(
        _ s: inout JSONScanner
    ) throws(JSONSyntaxError) -> (last: Usage?, cumulative: Usage?, model: String?) {
        guard try s.kind() == .object else {
            try s.skipValue()
            return (nil, nil, nil)
        }
        var last: Usage?
        var cumulative: Usage?
        var model: String?
        try object(&s) { (s, key) throws(JSONSyntaxError) in
            if s.key(key, is: "last_token_usage") {
                last = try tokens(&s)
            } else if s.key(key, is: "total_token_usage") {
                cumulative = try tokens(&s)
            } else if s.key(key, is: "model") {
                model = try text(&s)
            } else {
                try s.skipValue()
            }
        }
        return (last, cumulative, model)
    }

    /// A usage object's total and its parts.
    typealias Usage = (total: Int, parts: Breakdown)

    /// The `total_tokens` of a usage object, and its parts; where the total is missing or 0 beside
    /// other counts (older Codex builds), input + output + reasoning output, as ccusage recomputes it
    /// (its codex adapter's `CodexRawUsage`; RealWorld/codex/token-count-without-total). Nil when it
    /// holds no count at all.
    private static func tokens(_ s: inout JSONScanner) throws(JSONSyntaxError) -> Usage? {
        guard try s.kind() == .object else {
            try s.skipValue()
            return nil
        }
        var total: Int?
        var parts: Int?
        var breakdown = Breakdown()
        try object(&s) { (s, key) throws(JSONSyntaxError) in
            if s.key(key, is: "total_tokens") {
                total = try count(&s)
            } else if s.key(key, is: "input_tokens") {
                let part = try count(&s)
                breakdown.input = part ?? 0
                if let part { parts = (parts ?? 0).saturatingAdding(part) }
            } else if s.key(key, is: "output_tokens") {
                let part = try count(&s)
                breakdown.output = part ?? 0
                if let part { parts = (parts ?? 0).saturatingAdding(part) }
            } else if s.key(key, is: "reasoning_output_tokens") {
                let part = try count(&s)
                breakdown.reasoning = part ?? 0
                if let part { parts = (parts ?? 0).saturatingAdding(part) }
            } else if s.key(key, is: "cached_input_tokens") {
                breakdown.cached = try count(&s) ?? 0
            } else {
                try s.skipValue()
            }
        }
        // Cached tokens are part of the input (ccusage takes at most the input as cached).
        breakdown.cached = min(breakdown.cached, breakdown.input)
        if let total, total > 0 || (parts ?? 0) == 0 { return (total, breakdown) }
        guard let sum = parts ?? total else { return nil }
        return (sum, breakdown)
    }

    /// `error: {message, codex_error_info}` (or a bare message).
    private static func error(_ s: inout JSONScanner) throws(JSONSyntaxError) -> (String?, String?) {
        switch try s.kind() {
        case .string: return (try text(&s), nil)
        case .object:
            var message: String?
            var info: String?
            try object(&s) { (s, key) throws(JSONSyntaxError) in
                if s.key(key, is: "message") {
                    message = try text(&s)
                } else if s.key(key, is: "codex_error_info") {
                    info = try text(&s)
                } else {
                    try s.skipValue()
                }
            }
            return (message, info)
        default:
            try s.skipValue()
            return (nil, nil)
        }
    }

    private static func window(_ s: inout JSONScanner) throws(JSONSyntaxError) -> Window? {
        guard try s.kind() == .object else {
            try s.skipValue()
            return nil
        }
        var window = Window()
        try object(&s) { (s, key) throws(JSONSyntaxError) in
            if s.key(key, is: "used_percent") {
                window.used = try number(&s)
            } else if s.key(key, is: "window_minutes") {
                window.minutes = try count(&s)
            } else if s.key(key, is: "resets_at") {
                window.resetsAt = try number(&s)
            } else if s.key(key, is: "resets_in_seconds") {
                window.resetsInSeconds = try number(&s)
            } else {
                try s.skipValue()
            }
        }
        return window
    }

    private static func rateLimits(_ s: inout JSONScanner) throws(JSONSyntaxError) -> Limits? {
        guard try s.kind() == .object else {
            try s.skipValue()
            return nil
        }
        var limits = Limits()
        try object(&s) { (s, key) throws(JSONSyntaxError) in
            if s.key(key, is: "primary") {
                limits.primary = try window(&s)
            } else if s.key(key, is: "secondary") {
                limits.secondary = try window(&s)
            } else if s.key(key, is: "plan_type") {
                limits.plan = try text(&s)
            } else if s.key(key, is: "limit_id") {
                limits.limitID = try text(&s)
            } else if s.key(key, is: "limit_name") {
                limits.limitName = try text(&s)
            } else if s.key(key, is: "rate_limit_reached_type") {
                limits.reachedType = try text(&s)
            } else if s.key(key, is: "spend_control_reached") {
                limits.spendControlReached = try s.kind() == .bool ? try s.readBool() : nil
                if limits.spendControlReached == nil { try s.skipValue() }
            } else if s.key(key, is: "primary_used_percent") {
                limits.flatPrimaryUsed = try number(&s)
            } else if s.key(key, is: "secondary_used_percent") {
                limits.flatSecondaryUsed = try number(&s)
            } else if s.key(key, is: "primary_window_minutes") {
                limits.flatPrimaryMinutes = try count(&s)
            } else if s.key(key, is: "secondary_window_minutes") {
                limits.flatSecondaryMinutes = try count(&s)
            } else {
                try s.skipValue()
            }
        }
        return limits
    }
}
