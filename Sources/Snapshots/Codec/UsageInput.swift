import Portable
import TextSafety

/// What `publish --from` reads: this machine's provider entries from another program.
///
/// Three shapes are accepted: aggctl's own `{"providers": [ProviderUsage...]}`, a bare array of
/// `ProviderUsage`, and what `codexbar usage --format json` prints (an array of provider payloads or one
/// payload alone). Unlike stored records, input is read strictly: a bad entry is an error naming it, so a
/// broken producer is noticed on the machine that runs it instead of silently publishing less.
public enum UsageInput {
    /// Parses `data` into provider entries.
    ///
    /// - Parameter now: stands in for the read time of CodexBar payloads that carry none (error payloads).
    /// - Throws: `RecordDecodingError` naming the entry and field that is wrong.
    public static func providers(from data: Data, now: Date) throws(RecordDecodingError) -> [ProviderUsage] {
        let decoder = RecordCodec.makeDecoder()
        let shape: Shape
        do {
            shape = try decoder.decode(Shape.self, from: data)
        } catch {
            throw RecordDecodingError(reason: RecordCodec.describe(error))
        }
        var providers: [ProviderUsage]
        do {
            switch shape {
            case .document:
                providers = try decoder.decode(Document.self, from: data).providers
            case .providerArray:
                providers = try decoder.decode([ProviderUsage].self, from: data)
            case .codexBarArray:
                providers = try decoder.decode([CodexBarPayload].self, from: data).map { $0.providerUsage(now: now) }
            case .codexBarPayload:
                providers = [try decoder.decode(CodexBarPayload.self, from: data).providerUsage(now: now)]
            }
        } catch {
            throw RecordDecodingError(reason: RecordCodec.describe(error))
        }
        for index in providers.indices {
            let given = providers[index].providerID
            providers[index].providerID = given.trimmingBlanks().lowercased()
            if let problem = ProviderUsage.problem(withProviderID: providers[index].providerID) {
                throw RecordDecodingError(
                    reason: "providers[\(index)]: '\(RecordCodec.printable(given))': \(problem)")
            }
            if let field = fieldWithControlCharacters(providers[index]) {
                throw RecordDecodingError(
                    reason: "providers[\(index)].\(field) holds control characters (a line break, ESC, ...); "
                        + "identity fields are plain one-line text")
            }
            if let problem = rangeProblem(providers[index], at: "providers[\(index)]") {
                throw RecordDecodingError(reason: problem)
            }
        }
        return providers
    }

    /// The first value of `entry` every reader would ignore (its `lastUpdated`, or a window's length or
    /// reset time, or a count, out of range: `RecordFields`' rules), naming its field; nil when there is
    /// none. `publish` refuses such input rather than write a record whose figure each run drops with a
    /// note (a reset in the year 4052 was written, then ignored by every reader). A used percent outside
    /// 0...100 is written as the provider reported it: readers keep it and clamp what remains (docs/format.md).
    static func rangeProblem(_ entry: ProviderUsage, at path: String) -> String? {
        if let problem = RecordFields.dateProblem(entry.lastUpdated, path + ".lastUpdated") { return problem }
        var checked = entry
        var notes: [String] = []
        RecordFields.checkRanges(&checked, at: path, notes: &notes)
        let ignored = "; ignored"
        return notes.first(where: { $0.hasSuffix(ignored) }).map { String($0.dropLast(ignored.count)) }
    }

    /// The first identity field of `entry` (account, plan, a model's name) that a terminal would not show
    /// as written; nil when all are plain text. `error` is free text and is escaped where it is shown.
    static func fieldWithControlCharacters(_ entry: ProviderUsage) -> String? {
        if let email = entry.accountEmail, SafeText.hasControlCharacters(email) { return "accountEmail" }
        if let plan = entry.plan, SafeText.hasControlCharacters(plan) { return "plan" }
        for (position, model) in (entry.modelWeekly ?? []).enumerated() where SafeText.hasControlCharacters(model.name)
        {
            return "modelWeekly[\(position)].name"
        }
        return nil
    }

    private struct Document: Decodable {
        var providers: [ProviderUsage]
    }

    /// Which of the accepted shapes a document has, told apart by the keys of its first entry.
    private enum Shape: Decodable {
        case document, providerArray, codexBarArray, codexBarPayload

        private struct Probe: Decodable {
            var providers: [Discard]?
            var provider: Discard?
        }
        private struct Discard: Decodable {
            init(from decoder: any Decoder) throws {}
        }

        init(from decoder: any Decoder) throws {
            if var array = try? decoder.unkeyedContainer() {
                if array.isAtEnd {
                    self = .providerArray
                    return
                }
                let first = try array.decode(Probe.self)
                self = first.provider != nil ? .codexBarArray : .providerArray
                return
            }
            let probe = try decoder.singleValueContainer().decode(Probe.self)
            if probe.providers != nil {
                self = .document
            } else if probe.provider != nil {
                self = .codexBarPayload
            } else {
                throw DecodingError.keyNotFound(
                    CodingKeysForMessage(stringValue: "providers"),
                    .init(codingPath: [], debugDescription: "neither 'providers' nor a CodexBar payload"))
            }
        }
    }
}

struct CodingKeysForMessage: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// One provider payload as `codexbar usage --format json` prints it (CodexBar's CLI).
///
/// Mapping: `primary` is the session window, `secondary` the weekly one, `tertiary` (a per-model weekly
/// window on Claude) becomes a `modelWeekly` entry named `tertiary`, since CodexBar does not say which
/// model it is; `identity.loginMethod` is the plan; `error.message` becomes the entry's error.
struct CodexBarPayload: Decodable {
    struct Window: Decodable {
        var usedPercent: Double
        var windowMinutes: Int?
        var resetsAt: Date?

        var usageWindow: UsageWindow {
            UsageWindow(usedPercent: usedPercent, windowMinutes: windowMinutes, resetsAt: resetsAt)
        }
    }
    struct Identity: Decodable {
        var accountEmail: String?
        var loginMethod: String?
    }
    /// A further window CodexBar names (`{"id", "title", "window"}`): a model's week, Spark, a routine.
    struct ExtraWindow: Decodable {
        var id: String?
        var title: String?
        var window: Window?
    }
    struct Usage: Decodable {
        var primary: Window?
        var secondary: Window?
        var tertiary: Window?
        var extraRateWindows: [ExtraWindow]?
        var updatedAt: Date?
        var identity: Identity?
        var accountEmail: String?
        var loginMethod: String?
    }
    struct Failure: Decodable {
        var message: String?
    }

    var provider: String
    var account: String?
    var usage: Usage?
    var error: Failure?

    /// The payload as an entry. Windows are placed by their length, never by their position: the first
    /// up to a day is the session, the first of 4 to 10 days the week (a provider whose primary window is
    /// a week, Kimi, has no session), any other a limit; a window without a length keeps its position's
    /// meaning (primary the session, secondary the week). Each of `extraRateWindows` is a limit named by
    /// its title, stopping its model or feature.
    func providerUsage(now: Date) -> ProviderUsage {
        var entry = ProviderUsage(
            providerID: provider,
            accountEmail: usage?.identity?.accountEmail ?? usage?.accountEmail ?? account,
            plan: usage?.identity?.loginMethod ?? usage?.loginMethod,
            lastUpdated: usage?.updatedAt ?? now)
        var limits: [Limit] = []
        func add(_ limit: Limit) {
            if !limits.contains(where: { $0.id == limit.id }) { limits.append(limit) }
        }
        let positioned: [(String, Window?, Int)] = [
            // CodexBar's third window is a model's own (its "model-specific" lane), which it does not name.
            ("Primary", usage?.primary, 300), ("Secondary", usage?.secondary, 10_080), ("Model", usage?.tertiary, 0),
        ]
        for (name, found, fallback) in positioned {
            guard let found else { continue }
            var window = found.usageWindow
            let minutes = window.windowMinutes ?? (fallback > 0 ? fallback : nil)
            window.windowMinutes = minutes
            if let minutes, minutes <= 1440, entry.session == nil {
                entry.session = window
            } else if let minutes, (4 * 1440...10 * 1440).contains(minutes), entry.weekly == nil {
                entry.weekly = window
            } else {
                // Another length (a month is a quota of the account) or a second window of one length.
                add(Limit(named: name, window: window, binding: (minutes ?? 0) > 10 * 1440))
            }
        }
        for extra in usage?.extraRateWindows ?? [] {
            guard let window = extra.window else { continue }
            let name = extra.title ?? extra.id ?? "extra"
            add(Limit(named: name, window: window.usageWindow, binding: false))
        }
        entry.limits = limits.isEmpty ? nil : limits
        if let failure = error {
            entry.error = failure.message ?? "could not read usage"
        } else if usage == nil {
            entry.error = "no usage reported"
        }
        return entry
    }
}
