import Foundation
import Snapshots

/// Reads one Codex `token_count` log line straight from its bytes: only the timestamp, the last token
/// usage and the rate limits, everything else skipped (validated) by the scanner. A generic JSON tree
/// allocated a dictionary per object and held the scan to a fifth of this speed.
enum CodexEventDecoder: LogLineDecoder {
    struct Event {
        var at: Date
        var totalTokens: Int?
        var limits: Limits?
    }

    /// A `rate_limits` object in any of the shapes Codex has written.
    struct Limits {
        var primary: Window?
        var secondary: Window?
        var plan: String?
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

    /// The event of a line, or nil when the line is not a valid `token_count` event.
    static func decode(_ line: UnsafeRawBufferPointer) -> Event? {
        var s = JSONScanner(line)
        var at: Date?
        var isTokenCount = false
        var total: Int?
        var limits: Limits?
        do throws(JSONSyntaxError) {
            try object(&s) { (s, key) throws(JSONSyntaxError) in
                if s.key(key, is: "timestamp") {
                    at = try date(&s)
                } else if s.key(key, is: "payload") {
                    guard try s.kind() == .object else { return try s.skipValue() }
                    try object(&s) { (s, key) throws(JSONSyntaxError) in
                        if s.key(key, is: "type") {
                            isTokenCount = try text(&s) == "token_count"
                        } else if s.key(key, is: "info") {
                            total = try lastTotal(&s)
                        } else if s.key(key, is: "rate_limits") {
                            limits = try rateLimits(&s)
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
        guard isTokenCount, let at else { return nil }
        return Event(at: at, totalTokens: total, limits: limits)
    }

    private static func lastTotal(_ s: inout JSONScanner) throws(JSONSyntaxError) -> Int? {
        guard try s.kind() == .object else {
            try s.skipValue()
            return nil
        }
        var total: Int?
        try object(&s) { (s, key) throws(JSONSyntaxError) in
            guard s.key(key, is: "last_token_usage"), try s.kind() == .object else { return try s.skipValue() }
            try object(&s) { (s, key) throws(JSONSyntaxError) in
                if s.key(key, is: "total_tokens") {
                    total = try count(&s)
                } else {
                    try s.skipValue()
                }
            }
        }
        return total
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
