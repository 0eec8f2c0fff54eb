/// Finds the member a key names in one look, in whatever order a writer put the members.
///
/// A key is summed up by its length and three of its bytes (first, middle, last); a multiplier found
/// when the schema is made spreads the summaries of the schema's keys over a table without two landing
/// on one slot. A key then costs one product and one comparison, found or not. Reading the next member in
/// key order first found aggctl's own records on the first try, but every record written in another order
/// (the providers' own tools, other writers, most hand-made records) searched the members one by one: a
/// limit's nine members cost 7 k instructions that way.
struct SchemaKeyTable: Sendable {
    private static let none = UInt8.max
    private let multiplier: UInt32
    private let shift: UInt32
    /// The member at each slot, or `none`.
    private let slots: [UInt8]

    /// A table for `keys` (nil where a member is not in the record), or nil when none of the multipliers
    /// tried keeps the keys apart (two keys with the same summary); the reader then searches.
    init?(keys: [StaticString?]) {
        let summaries = keys.map { key in key.map { Self.summary($0.utf8Start, $0.utf8CodeUnitCount) } }
        let present = summaries.compactMap { $0 }
        guard keys.count < Int(Self.none), Set(present).count == present.count else { return nil }
        // At least eight slots a key: a multiplier that keeps them apart is then found in a few tries.
        var bits: UInt32 = 4
        while (1 << bits) < present.count * 8 { bits += 1 }
        var candidate: UInt32 = 0x9E37_79B1
        for _ in 0..<256 {
            var slots = [UInt8](repeating: Self.none, count: 1 << bits)
            var apart = true
            for (index, summary) in summaries.enumerated() {
                guard let summary else { continue }
                let slot = Int((summary &* candidate) >> (32 - bits))
                if slots[slot] != Self.none {
                    apart = false
                    break
                }
                slots[slot] = UInt8(index)
            }
            if apart {
                multiplier = candidate
                shift = 32 - bits
                self.slots = slots
                return
            }
            candidate = candidate &* 0x0101_0101 &+ 0x2545_F491 | 1
        }
        return nil
    }

    /// The member whose key may be the `length` bytes at `bytes` (which must then still be compared), or
    /// nil for none.
    @inline(__always)
    func candidate(_ bytes: UnsafePointer<UInt8>, _ length: Int) -> Int? {
        guard length > 0 else { return nil }
        let index = slots[Int((Self.summary(bytes, length) &* multiplier) >> shift)]
        return index == Self.none ? nil : Int(index)
    }

    @inline(__always)
    private static func summary(_ bytes: UnsafePointer<UInt8>, _ length: Int) -> UInt32 {
        guard length > 0 else { return 0 }
        return UInt32(truncatingIfNeeded: length) | UInt32(bytes[0]) << 8 | UInt32(bytes[length >> 1]) << 16
            | UInt32(bytes[length - 1]) << 24
    }
}
