extension Int {
    /// `self + other`, held at `Int.max` (or `Int.min`) instead of trapping or wrapping around.
    ///
    /// For token counts, which come from hostile logs and records: a total past the largest count still
    /// says "more than any", where `+` would stop the run and `&+` would print a negative count.
    @inlinable
    public func saturatingAdding(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    /// Adds `other` in place as `saturatingAdding` does: for a table's entry (`byDay[day, default: 0]`),
    /// found once, where reading and writing it back looked the key up twice.
    @inlinable
    public mutating func saturatingAdd(_ other: Int) {
        self = saturatingAdding(other)
    }
}

extension Sequence where Element == Int {
    /// The sum of the elements, each addition `saturatingAdding`.
    @inlinable
    public func saturatingSum() -> Int {
        reduce(0) { $0.saturatingAdding($1) }
    }
}
