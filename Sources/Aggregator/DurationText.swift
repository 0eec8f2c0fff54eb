import Portable

/// Durations as tables, notifications and pages say them.
public enum DurationText {
    /// `45m`, `2h 10m`, `3d 2h`, `<1m`: a duration as tables, notifications and pages say it.
    public static func short(_ seconds: TimeInterval) -> String {
        let minutes = Int(seconds / 60)
        if minutes < 1 { return "<1m" }
        if minutes < 60 { return "\(minutes)m" }
        let hours = minutes / 60
        if hours < 24 { return minutes % 60 == 0 ? "\(hours)h" : "\(hours)h \(minutes % 60)m" }
        let days = hours / 24
        return hours % 24 == 0 ? "\(days)d" : "\(days)d \(hours % 24)h"
    }
}
