import Portable

/// The schema v1 types, field by field, in the order the model declares them.
extension FastRecordDecoder {
    static func readRecord(_ s: inout JSONScanner, history: HistoryDetail) throws(Failure) -> RecordFields {
        var schemaVersion = Field<Int?>.absent
        var deviceID = Field<String?>.absent
        var deviceName = Field<String?>.absent
        var appVersion = Field<String?>.absent
        var generatedAt = Field<Date>.absent
        var providers = Field<[Result<ProviderUsage, RecordFields.EntryFailure>]>.absent
        try object(&s) { (s, key) throws(Failure) in
            if s.key(key, is: "providers") {
                try read(&s, into: &providers, key: "providers") { (s) throws(Failure) in
                    try providerList(&s, history: history)
                }
            } else if s.key(key, is: "generatedAt") {
                try read(&s, into: &generatedAt, key: "generatedAt", date)
            } else if s.key(key, is: "deviceID") {
                try read(&s, into: &deviceID, key: "deviceID", optionalString)
            } else if s.key(key, is: "deviceName") {
                try read(&s, into: &deviceName, key: "deviceName", optionalString)
            } else if s.key(key, is: "schemaVersion") {
                try read(&s, into: &schemaVersion, key: "schemaVersion", optionalInt)
            } else if s.key(key, is: "appVersion") {
                try read(&s, into: &appVersion, key: "appVersion", optionalString)
            } else {
                return false
            }
            return true
        }
        return RecordFields(
            schemaVersion: try optional(schemaVersion), deviceID: try optional(deviceID),
            deviceName: try optional(deviceName), appVersion: try optional(appVersion),
            generatedAt: try required(generatedAt, "generatedAt"), providers: try required(providers, "providers"))
    }

    /// The providers array: each entry decoded alone, so that one bad entry is skipped, not fatal.
    static func providerList(
        _ s: inout JSONScanner, history: HistoryDetail
    ) throws(Failure) -> [Result<ProviderUsage, RecordFields.EntryFailure>] {
        var entries: [Result<ProviderUsage, RecordFields.EntryFailure>] = []
        try array(&s) { (s, index) throws(Failure) in
            let mark = s.index
            let depth = s.depth
            do throws(Failure) {
                entries.append(.success(try provider(&s, history: history)))
            } catch let failure {
                guard case .schema(let error) = failure else { throw failure }
                s.index = mark
                s.depth = depth
                try skip(&s)
                let located = error.prefixed(.index(index)).prefixed(.key("providers"))
                entries.append(.failure(RecordFields.EntryFailure(reason: located.reason)))
            }
        }
        return entries
    }

    static func provider(_ s: inout JSONScanner, history: HistoryDetail) throws(Failure) -> ProviderUsage {
        let keepHistory = history == .full
        var providerID = Field<String>.absent
        var accountEmail = Field<String?>.absent
        var plan = Field<String?>.absent
        var lastUpdated = Field<Date>.absent
        var session = Field<UsageWindow?>.absent
        var weekly = Field<UsageWindow?>.absent
        var modelWeekly = Field<[NamedWindow]?>.absent
        var tokens = Field<TokenUsage?>.absent
        var costUSD = Field<CostUsage?>.absent
        var weeklySamples = Field<[UsageSample]?>.absent
        var sessionSamples = Field<[UsageSample]?>.absent
        var trend: WeeklyTrend?
        var error = Field<String?>.absent
        try object(&s) { (s, key) throws(Failure) in
            if s.key(key, is: "providerID") {
                try read(&s, into: &providerID, key: "providerID", string)
            } else if s.key(key, is: "accountEmail") {
                try read(&s, into: &accountEmail, key: "accountEmail", optionalString)
            } else if s.key(key, is: "lastUpdated") {
                try read(&s, into: &lastUpdated, key: "lastUpdated", date)
            } else if s.key(key, is: "session") {
                try read(&s, into: &session, key: "session") { (s) throws(Failure) in try optionalObject(&s, window) }
            } else if s.key(key, is: "weekly") {
                try read(&s, into: &weekly, key: "weekly") { (s) throws(Failure) in try optionalObject(&s, window) }
            } else if s.key(key, is: "plan") {
                try read(&s, into: &plan, key: "plan", optionalString)
            } else if s.key(key, is: "tokens") {
                try read(&s, into: &tokens, key: "tokens") { (s) throws(Failure) in
                    try optionalObject(&s) { (s) throws(Failure) in try tokenUsage(&s, keepHistory: keepHistory) }
                }
            } else if s.key(key, is: "costUSD") {
                try read(&s, into: &costUSD, key: "costUSD") { (s) throws(Failure) in try optionalObject(&s, costUsage)
                }
            } else if s.key(key, is: "modelWeekly") {
                try read(&s, into: &modelWeekly, key: "modelWeekly") { (s) throws(Failure) in
                    try optionalList(&s, namedWindow)
                }
            } else if s.key(key, is: "weeklySamples") {
                guard keepHistory else {
                    guard history == .trend, trend == nil else { return false }
                    trend = try weeklyTrend(&s)
                    return true
                }
                try read(&s, into: &weeklySamples, key: "weeklySamples") { (s) throws(Failure) in
                    try optionalList(&s, sample)
                }
            } else if s.key(key, is: "sessionSamples") {
                guard keepHistory else { return false }
                try read(&s, into: &sessionSamples, key: "sessionSamples") { (s) throws(Failure) in
                    try optionalList(&s, sample)
                }
            } else if s.key(key, is: "error") {
                try read(&s, into: &error, key: "error", optionalString)
            } else {
                return false
            }
            return true
        }
        return ProviderUsage(
            providerID: try required(providerID, "providerID"), accountEmail: try optional(accountEmail),
            plan: try optional(plan), lastUpdated: try required(lastUpdated, "lastUpdated"),
            session: try optional(session), weekly: try optional(weekly), modelWeekly: try optional(modelWeekly),
            tokens: try optional(tokens), costUSD: try optional(costUSD), weeklySamples: try optional(weeklySamples),
            sessionSamples: try optional(sessionSamples), error: try optional(error), weeklyTrend: trend)
    }

    /// What a reader that skips history keeps of `weeklySamples`: its trend (`WeeklyTrend`).
    ///
    /// Cheap, because it is paid on every cold read: the list is skipped (validated as JSON) as before,
    /// noting where each sample starts; then samples are read from the newest back, only their `at` and
    /// `usedPercent`, only until the trend's seven days are covered (samples are written oldest first).
    /// Reading every sample forward made a cold `status` half as slow again. A sample of the wrong shape
    /// is left out, as is a value that is not an array: the trend is a picture, never a reason to refuse
    /// an entry.
    static func weeklyTrend(_ s: inout JSONScanner) throws(Failure) -> WeeklyTrend? {
        guard try kind(&s) == .array else {
            try skip(&s)
            return nil
        }
        var starts: [Int] = []
        starts.reserveCapacity(256)
        let elementDepth = s.depth + 1
        // Skipped by the shape its samples repeat, as other history is, noting where each begins.
        do { try s.skipArray(notingStarts: &starts) } catch { throw .syntax(error) }
        let end = (index: s.index, depth: s.depth)
        defer {
            s.index = end.index
            s.depth = end.depth
        }
        // Newest first: the first sample met in a half day is its newest (in a list out of order, which the
        // full reader sorts, the trend may only show another of the half day's figures). A list written
        // newest first throughout (the full reader accepts it) is walked from its start.
        func at(_ start: Int) -> Double? {
            s.index = start
            s.depth = elementDepth
            return (try? sampleFigures(&s))?.0
        }
        var order = AnyCollection(starts.reversed())
        if starts.count > 1, let firstAt = at(starts[0]), let lastAt = at(starts[starts.count - 1]), firstAt > lastAt {
            order = AnyCollection(starts)
        }
        var newestFirst: [(at: Double, used: Double)] = []
        var newest: Int?
        var current: Int?
        for start in order {
            s.index = start
            s.depth = elementDepth
            guard let (at, used) = try? sampleFigures(&s) else { continue }
            let halfDay = Int((at / WeeklyTrend.halfDay).rounded(.down))
            if newest == nil { newest = halfDay }
            if let newest, halfDay <= newest - WeeklyTrend.span { break }
            if halfDay != current {
                current = halfDay
                newestFirst.append((at, used))
            }
        }
        var trend = WeeklyTrend()
        for sample in newestFirst.reversed() { trend.add(at: sample.at, usedPercent: sample.used) }
        return trend.points.isEmpty ? nil : trend
    }

    /// A sample's `at` (Unix seconds) and `usedPercent`; throws for one of the wrong shape.
    private static func sampleFigures(_ s: inout JSONScanner) throws(Failure) -> (Double, Double) {
        guard try kind(&s) == .object else { throw .schema(SchemaError(kind: .mismatch("an object"))) }
        var at: Double?
        var used: Double?
        do { try s.enterObject() } catch { throw .syntax(error) }
        var firstKey = true
        while true {
            let key: JSONScanner.RawString?
            do { key = try s.nextKey(&firstKey) } catch { throw .syntax(error) }
            guard let key else { break }
            if at == nil, s.key(key, is: "at"), try kind(&s) == .string {
                let raw: JSONScanner.RawString
                do { raw = try s.readRawString() } catch { throw .syntax(error) }
                at =
                    RFC3339.parse(bytes: UnsafeRawBufferPointer(start: s.base + raw.start, count: raw.end - raw.start))?
                    .timeIntervalSince1970
            } else if used == nil, s.key(key, is: "usedPercent"), try kind(&s) == .number {
                let raw: JSONScanner.RawNumber
                do { raw = try s.readRawNumber() } catch { throw .syntax(error) }
                used = s.double(raw)
            } else {
                try skip(&s)
            }
        }
        guard let at, let used else { throw .schema(SchemaError(kind: .missing("at"))) }
        return (at, used)
    }

    static func window(_ s: inout JSONScanner) throws(Failure) -> UsageWindow {
        var usedPercent = Field<Double>.absent
        var windowMinutes = Field<Int?>.absent
        var resetsAt = Field<Date?>.absent
        try object(&s) { (s, key) throws(Failure) in
            if s.key(key, is: "usedPercent") {
                try read(&s, into: &usedPercent, key: "usedPercent", double)
            } else if s.key(key, is: "resetsAt") {
                try read(&s, into: &resetsAt, key: "resetsAt", optionalDate)
            } else if s.key(key, is: "windowMinutes") {
                try read(&s, into: &windowMinutes, key: "windowMinutes", optionalInt)
            } else {
                return false
            }
            return true
        }
        return UsageWindow(
            usedPercent: try required(usedPercent, "usedPercent"), windowMinutes: try optional(windowMinutes),
            resetsAt: try optional(resetsAt))
    }

    static func namedWindow(_ s: inout JSONScanner) throws(Failure) -> NamedWindow {
        var name = Field<String>.absent
        var window = Field<UsageWindow>.absent
        try object(&s) { (s, key) throws(Failure) in
            if s.key(key, is: "name") {
                try read(&s, into: &name, key: "name", string)
            } else if s.key(key, is: "window") {
                try read(&s, into: &window, key: "window", Self.window)
            } else {
                return false
            }
            return true
        }
        return NamedWindow(name: try required(name, "name"), window: try required(window, "window"))
    }

    static func sample(_ s: inout JSONScanner) throws(Failure) -> UsageSample {
        var at = Field<Date>.absent
        var usedPercent = Field<Double>.absent
        var resetsAt = Field<Date?>.absent
        try object(&s) { (s, key) throws(Failure) in
            if s.key(key, is: "at") {
                try read(&s, into: &at, key: "at", date)
            } else if s.key(key, is: "usedPercent") {
                try read(&s, into: &usedPercent, key: "usedPercent", double)
            } else if s.key(key, is: "resetsAt") {
                try read(&s, into: &resetsAt, key: "resetsAt", optionalDate)
            } else {
                return false
            }
            return true
        }
        return UsageSample(
            at: try required(at, "at"), usedPercent: try required(usedPercent, "usedPercent"),
            resetsAt: try optional(resetsAt))
    }

    static func tokenUsage(_ s: inout JSONScanner, keepHistory: Bool) throws(Failure) -> TokenUsage {
        var today = Field<Int?>.absent
        var last30Days = Field<Int?>.absent
        var daily = Field<[DailyTokens]?>.absent
        try object(&s) { (s, key) throws(Failure) in
            if s.key(key, is: "daily") {
                guard keepHistory else { return false }
                try read(&s, into: &daily, key: "daily") { (s) throws(Failure) in try optionalList(&s, dailyTokens) }
            } else if s.key(key, is: "today") {
                try read(&s, into: &today, key: "today", optionalInt)
            } else if s.key(key, is: "last30Days") {
                try read(&s, into: &last30Days, key: "last30Days", optionalInt)
            } else {
                return false
            }
            return true
        }
        return TokenUsage(today: try optional(today), last30Days: try optional(last30Days), daily: try optional(daily))
    }

    static func dailyTokens(_ s: inout JSONScanner) throws(Failure) -> DailyTokens {
        var date = Field<String>.absent
        var tokens = Field<Int>.absent
        var costUSD = Field<Double?>.absent
        try object(&s) { (s, key) throws(Failure) in
            if s.key(key, is: "date") {
                try read(&s, into: &date, key: "date", string)
            } else if s.key(key, is: "tokens") {
                try read(&s, into: &tokens, key: "tokens", int)
            } else if s.key(key, is: "costUSD") {
                try read(&s, into: &costUSD, key: "costUSD", optionalDouble)
            } else {
                return false
            }
            return true
        }
        return DailyTokens(
            date: try required(date, "date"), tokens: try required(tokens, "tokens"), costUSD: try optional(costUSD))
    }

    static func costUsage(_ s: inout JSONScanner) throws(Failure) -> CostUsage {
        var today = Field<Double?>.absent
        var last30Days = Field<Double?>.absent
        try object(&s) { (s, key) throws(Failure) in
            if s.key(key, is: "today") {
                try read(&s, into: &today, key: "today", optionalDouble)
            } else if s.key(key, is: "last30Days") {
                try read(&s, into: &last30Days, key: "last30Days", optionalDouble)
            } else {
                return false
            }
            return true
        }
        return CostUsage(today: try optional(today), last30Days: try optional(last30Days))
    }
}
