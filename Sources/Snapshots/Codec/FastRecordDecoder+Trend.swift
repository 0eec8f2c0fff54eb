import Portable
import Serialization

/// The weekly trend a reader of trends keeps instead of `weeklySamples` (`HistoryDetail.trend`).
extension FastRecordDecoder {
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
}
