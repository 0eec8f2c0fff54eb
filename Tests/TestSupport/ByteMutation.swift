/// Breaks bytes the way the readers' differential tests do: one to three times, a byte removed, one
/// inserted or replaced (from `alphabet`), or the tail cut off.
public enum ByteMutation {
    public static func mutate(
        _ bytes: inout [UInt8], times: ClosedRange<Int> = 1...3, alphabet: [UInt8],
        using generator: inout SeededGenerator
    ) {
        for _ in 0..<Int.random(in: times, using: &generator) where !bytes.isEmpty {
            let at = Int.random(in: 0..<bytes.count, using: &generator)
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: bytes.remove(at: at)
            case 1: bytes.insert(alphabet.randomElement(using: &generator)!, at: at)
            case 2: bytes[at] = alphabet.randomElement(using: &generator)!
            default: bytes.removeLast(Int.random(in: 0...(bytes.count - at), using: &generator))
            }
        }
    }
}
