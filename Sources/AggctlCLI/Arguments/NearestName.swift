/// The known name a mistyped one most likely meant (`--stor` -> `store`, `stauts` -> `status`): the
/// closest by edit distance counting a swap of two neighbours as one edit, when it is close enough to be
/// a typo (at most a third of the name's length, and at least one), or the one the typed name begins.
enum NearestName {
    static func of(_ typed: String, among names: [String]) -> String? {
        let typed = typed.lowercased()
        guard !typed.isEmpty else { return nil }
        let prefixed = names.filter { $0.hasPrefix(typed) }
        if prefixed.count == 1 { return prefixed[0] }
        let scored = names.map { (name: $0, distance: distance(Array(typed), Array($0))) }
        guard let best = scored.min(by: { $0.distance < $1.distance }) else { return nil }
        let allowed = max(1, typed.count / 3)
        // Two names equally close are no answer: a guess could send a person the wrong way.
        guard best.distance <= allowed, scored.filter({ $0.distance == best.distance }).count == 1 else { return nil }
        return best.name
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
