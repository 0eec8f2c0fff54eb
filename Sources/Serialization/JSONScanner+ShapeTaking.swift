/// Taking the shape of an array's element, which `skipArrayOfShapes` then matches later elements
/// against (`JSONScanner+RepeatedShape.swift`): the fixed bytes as words with their masks, and where the
/// values of varying length lie.
extension JSONScanner {
    /// A string value longer than this is a value of its own in a shape, not part of a run.
    private static let maximumFixedString = 64

    /// The shape of one validated stretch (a separator and the element after it). Returns the number of
    /// runs, or -1 when the stretch is too large or has too many values to keep a shape of.
    func takeShape(
        from start: Int, to end: Int, runs: UnsafeMutableBufferPointer<ShapeRun>,
        words: UnsafeMutableBufferPointer<ShapeWord>
    ) -> Int {
        guard end - start <= JSONScanner.maximumShapeBytes else { return -1 }
        let length = end - start
        // The stretch's bytes, then a flag per byte (0xFF: a plain string character), each padded with
        // sixteen zeros so that a word can be loaded anywhere in it.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 2 * (length + 16)) { scratch in
            scratch.initialize(repeating: 0)
            let copy = scratch.baseAddress!
            let plain = copy + length + 16
            copy.update(from: base + start, count: length)
            var runCount = 0
            var wordCount = 0
            var runStart = start
            // Ends the run from `runStart` at `runEnd`, followed by `value`: its words and masks.
            func close(at runEnd: Int, _ value: ShapeValue) -> Bool {
                let runLength = runEnd - runStart
                guard runCount < runs.count else { return false }
                let first = wordCount
                var offset = 0
                while offset < runLength {
                    // The last word ends with the run (overlapping the one before); a run shorter than a
                    // word is one word with its masks covering only the run.
                    let at = runLength >= 16 && offset + 16 > runLength ? runLength - 16 : offset
                    guard wordCount < words.count else { return false }
                    let from = runStart - start + at
                    let inRun = UnsafeRawPointer(JSONScanner.laneLimits).loadUnaligned(
                        fromByteOffset: 16 - min(16, runLength - at), as: SIMD16<UInt8>.self)
                    let plainLanes = UnsafeRawPointer(plain + from).loadUnaligned(as: SIMD16<UInt8>.self) & inRun
                    words[wordCount] = ShapeWord(
                        bytes: UnsafeRawPointer(copy + from).loadUnaligned(as: SIMD16<UInt8>.self),
                        exact: inRun & ~plainLanes, plain: plainLanes, offset: at,
                        hasPlain: unsafeBitCast(plainLanes, to: SIMD2<UInt64>.self) != .zero)
                    wordCount += 1
                    offset = at + 16
                }
                runs[runCount] = ShapeRun(
                    length: runLength, firstWord: first, wordCount: wordCount - first, value: value)
                runCount += 1
                return true
            }
            var at = start
            while at < end {
                let byte = base[at]
                if byte == UInt8(ascii: "\"") {
                    var closing = at + 1
                    var isPlain = true
                    while closing < end && base[closing] != UInt8(ascii: "\"") {
                        let content = base[closing]
                        if content == UInt8(ascii: "\\") {
                            isPlain = false
                            closing += 2
                        } else {
                            if content < 0x20 || content >= 0x80 { isPlain = false }
                            closing += 1
                        }
                    }
                    let after = closing + 1
                    var next = after
                    while next < end && base[next] <= 0x20 { next += 1 }
                    if next < end && base[next] == UInt8(ascii: ":") {
                        // A key: fixed bytes of the shape.
                    } else if isPlain && closing - at - 1 <= JSONScanner.maximumFixedString {
                        for position in (at + 1)..<closing { plain[position - start] = 0xFF }
                    } else {
                        guard close(at: at, .string) else { return -1 }
                        runStart = after
                    }
                    at = after
                } else if byte == UInt8(ascii: "-") || byte &- UInt8(ascii: "0") < 10 {
                    guard close(at: at, .number) else { return -1 }
                    at += 1
                    while at < end, JSONScanner.continuesNumber(base[at]) { at += 1 }
                    runStart = at
                } else {
                    at += 1
                }
            }
            guard close(at: end, .none) else { return -1 }
            return runCount
        }
    }

    /// Sixteen 0xFF then sixteen zeros: sixteen bytes loaded from `16 - n` have 0xFF in their first n lanes.
    nonisolated(unsafe) private static let laneLimits: UnsafePointer<UInt8> = {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 32)
        table.initialize(repeating: 0, count: 32)
        table.update(repeating: 0xFF, count: 16)
        return UnsafePointer(table)
    }()

    @inline(__always)
    private static func continuesNumber(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10 || byte == UInt8(ascii: ".") || byte | 0x20 == UInt8(ascii: "e")
            || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
    }
}
