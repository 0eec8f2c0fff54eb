import Portable
import Serialization
import TextSafety

extension ProviderUsage {
    /// The most a collector's used percent may be: providers report overage above 100, and a figure
    /// past ten times the limit is no percent (Claude Code once handed an epoch, 1.79e9, in its place).
    public static let largestUsedPercent = 1000.0

    /// The dates a collector may write (2000...2100): a reset in the year 1 or 5138 is a broken field.
    static let collectedDates = Date(timeIntervalSince1970: 946_684_800)...Date(timeIntervalSince1970: 4_102_444_800)

    /// The entry as it may become part of a record, and a warning for each value changed: the one
    /// boundary every source passes (`--from` input is refused instead, so that its producer is told).
    ///
    /// - a window whose used percent is not finite or outside 0...`largestUsedPercent` is dropped;
    /// - a window length that is not positive, a reset or `lastUpdated` outside 2000...2100, a negative
    ///   count: what every reader would ignore, left out (`RecordFields.checkRanges`);
    /// - control characters in the account, plan or a model's name are removed (an `auth.json` from
    ///   anywhere once carried ESC and BEL into the store).
    public func admitted(source: String, now: Date) -> (entry: ProviderUsage, warnings: [String]) {
        var entry = self
        var warnings: [String] = []
        let path = "\(source) \(providerID)"
        func window(_ window: UsageWindow?, _ name: String) -> UsageWindow? {
            guard var window else { return nil }
            guard window.usedPercent.isFinite, (0...Self.largestUsedPercent).contains(window.usedPercent) else {
                warnings.append(
                    "\(path): the \(name) window's used percent \(window.usedPercent) is no percent; the window is left out"
                )
                return nil
            }
            if let reset = window.resetsAt, !Self.collectedDates.contains(reset) {
                warnings.append(
                    "\(path): the \(name) window's reset \(RFC3339.format(reset)) is out of range; left out")
                window.resetsAt = nil
            }
            return window
        }
        entry.session = window(entry.session, "session")
        entry.weekly = window(entry.weekly, "weekly")
        entry.modelWeekly = entry.modelWeekly?.compactMap { model in
            window(model.window, model.name).map { NamedWindow(name: model.name, window: $0) }
        }
        if entry.modelWeekly?.isEmpty == true { entry.modelWeekly = nil }
        entry.limits = entry.limits?.compactMap { limit in
            window(limit.window, limit.label).map { figures in
                var limit = limit
                limit.resetsAt = figures.resetsAt
                return limit
            }
        }
        if entry.limits?.isEmpty == true { entry.limits = nil }
        if !Self.collectedDates.contains(entry.lastUpdated) {
            warnings.append(
                "\(path): lastUpdated \(RFC3339.format(entry.lastUpdated)) is out of range; the time of reading stands")
            entry.lastUpdated = now
        }
        var notes: [String] = []
        RecordFields.checkRanges(&entry, at: path, notes: &notes)
        warnings += notes.filter { $0.hasSuffix("; ignored") }.map {
            String($0.dropLast("; ignored".count)) + "; left out"
        }
        warnings += notes.filter { $0.hasPrefix("skipped ") }.map {
            String($0.dropFirst("skipped ".count)) + "; left out"
        }
        func plain(_ text: String?, _ field: String) -> String? {
            guard let text, SafeText.hasControlCharacters(text) else { return text }
            warnings.append("\(path): \(field) held control characters; they are removed")
            return String(
                String.UnicodeScalarView(text.unicodeScalars.filter { !SafeText.hasControlCharacters(String($0)) }))
        }
        entry.accountEmail = plain(entry.accountEmail, "accountEmail")
        entry.plan = plain(entry.plan, "plan")
        entry.modelWeekly = entry.modelWeekly?.map {
            NamedWindow(name: plain($0.name, "a model's name") ?? $0.name, window: $0.window)
        }
        entry.limits = entry.limits?.map { limit in
            var limit = limit
            limit.label = plain(limit.label, "a limit's label") ?? limit.label
            limit.unit = plain(limit.unit, "a limit's unit")
            return limit
        }
        // Written as version 2 writes them: per-model weeks are limits.
        RecordFields.foldModelWeekly(&entry)
        RecordFields.moveMonthFromWeekly(&entry)
        return (entry, warnings)
    }
}
