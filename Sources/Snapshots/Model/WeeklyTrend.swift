import Portable
import Serialization

/// The shape of an entry's weekly history in a few numbers: where the weekly window stood at the end of
/// each half day (UTC) of the last week its samples cover. What `status` draws its sparkline from.
///
/// A reader that skips history (the record format: "a reader that does not need it skips it cheaply") still
/// takes this much from the samples as it passes them, so that a table can show the last days without
/// keeping, caching or merging every sample.
public struct WeeklyTrend: Sendable, Equatable {
    /// One half day: its index since 1970 (`at / 43 200`), the newest sample in it and its figure.
    public struct Point: Sendable, Equatable {
        public var halfDay: Int
        public var at: Double
        public var usedPercent: Double

        public init(halfDay: Int, at: Double, usedPercent: Double) {
            self.halfDay = halfDay
            self.at = at
            self.usedPercent = usedPercent
        }
    }

    /// Oldest first, one per half day, at most `span` of them.
    public var points: [Point]

    /// Seven days.
    public static let span = 14
    public static let halfDay: Double = 43_200

    public init(points: [Point] = []) {
        self.points = points
    }

    /// Adds a sample seen in order (oldest first); the newest sample of a half day stands for it.
    public mutating func add(at: Double, usedPercent: Double) {
        guard at.isFinite, usedPercent.isFinite, abs(at) < 1e12 else { return }
        let index = Int((at / Self.halfDay).rounded(.down))
        let used = min(100, max(0, usedPercent))
        if let last = points.last, last.halfDay == index {
            if at >= last.at { points[points.count - 1] = Point(halfDay: index, at: at, usedPercent: used) }
            return
        }
        if let last = points.last, index < last.halfDay {
            // Out of order: placed where it belongs (rare; records are written oldest first).
            if let same = points.firstIndex(where: { $0.halfDay == index }) {
                if at >= points[same].at { points[same] = Point(halfDay: index, at: at, usedPercent: used) }
            } else {
                points.append(Point(halfDay: index, at: at, usedPercent: used))
                points.sort { $0.halfDay < $1.halfDay }
            }
        } else {
            points.append(Point(halfDay: index, at: at, usedPercent: used))
        }
        if let newest = points.last?.halfDay, let first = points.first?.halfDay, newest - first >= Self.span {
            points.removeAll { $0.halfDay <= newest - Self.span }
        }
    }

    /// The trend of `samples`.
    public init(_ samples: [UsageSample]) {
        self.init()
        for sample in samples { add(at: sample.at.timeIntervalSince1970, usedPercent: sample.usedPercent) }
    }

    /// Several devices' trends of one account: per half day, the newest sample standing.
    public static func merged(_ trends: [WeeklyTrend]) -> WeeklyTrend {
        if trends.count == 1 { return trends[0] }
        var all = trends.flatMap(\.points)
        all.sort { ($0.halfDay, $0.at, $0.usedPercent) < ($1.halfDay, $1.at, $1.usedPercent) }
        var result = WeeklyTrend()
        for point in all { result.add(at: point.at, usedPercent: point.usedPercent) }
        return result
    }

    /// The figure of each of the `span` half days ending with the one holding `now`, oldest first; nil
    /// where no sample fell. The half day under way, when it has no sample yet, shows the last figure
    /// known (where the window stands now, as far as anyone knows).
    public func halfDays(endingAt now: Date) -> [Double?] {
        let newest = Int((now.timeIntervalSince1970 / Self.halfDay).rounded(.down))
        var values = [Double?](repeating: nil, count: Self.span)
        for point in points {
            let slot = Self.span - 1 - (newest - point.halfDay)
            if (0..<Self.span).contains(slot) { values[slot] = point.usedPercent }
        }
        if values[Self.span - 1] == nil { values[Self.span - 1] = values[Self.span - 2] }
        return values
    }
}

/// Kept in the caches as its points; never in a record (it is worked out from `weeklySamples`).
extension WeeklyTrend: KeptValue {
    func keep(in out: inout BinaryWriter) {
        out.u32(UInt32(points.count))
        for point in points {
            out.int(point.halfDay)
            out.double(point.at)
            out.double(point.usedPercent)
        }
    }

    static func restore(from reader: inout BinaryReader) throws -> WeeklyTrend {
        let count = Int(try reader.u32())
        guard count <= WeeklyTrend.span else { throw BinaryReader.Corrupt() }
        return WeeklyTrend(
            points: try (0..<count).map { _ in
                WeeklyTrend.Point(halfDay: try reader.int(), at: try reader.double(), usedPercent: try reader.double())
            })
    }
}
