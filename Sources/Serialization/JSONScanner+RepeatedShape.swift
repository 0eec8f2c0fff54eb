/// Skipping arrays whose elements repeat one shape, which is what history is: hundreds of samples that
/// differ only in their values (`,\n    {\n     "at": "…",\n     "usedPercent": …,\n ...}`).
///
/// Once one element has been validated the usual way, its bytes other than its values (separator, white
/// space, brackets, keys, `true`/`false`/`null`) are known to be valid JSON. A later element with the same
/// bytes there, and a valid value wherever the first had one, is then valid too. Such an element is passed
/// over sixteen bytes at a time (Swift's SIMD types, SSE2 or NEON): the fixed bytes are compared whole,
/// string values of the length the first element had (time stamps, dates) are checked for plain
/// characters under a mask, and only numbers (and strings of other lengths or with escapes) are read value
/// by value. In indented JSON a byte that matters comes every six or so, and a byte-wise reader pays for
/// each.
///
/// Matching is all or nothing: an element that does not match is read again from its start the usual way,
/// so what is accepted, where reading stops and what an error names are exactly what the plain reader
/// gives (a differential test and the fuzzer hold it to that).
extension JSONScanner {
    /// A stretch of an element's shape checked word by word (`ShapeWord`s), then a value of varying length.
    struct ShapeRun {
        var length: Int
        var firstWord: Int
        var wordCount: Int
        var value: ShapeValue
        /// The bytes a match needs in the document from the run's start: every word is loaded whole, also
        /// the one of a run shorter than sixteen bytes, and a number after the run is read by words
        /// (`shortNumberLength`). Kept, not computed on each match.
        var reach: Int

        init(length: Int, firstWord: Int, wordCount: Int, value: ShapeValue) {
            self.length = length
            self.firstWord = firstWord
            self.wordCount = wordCount
            self.value = value
            reach = max(
                wordCount == 0 ? 0 : max(length, 16), value == .number ? length + JSONScanner.shortNumberReach : 0)
        }
    }

    /// Sixteen bytes of a run, `offset` bytes into it: `exact` has 0xFF at each byte that must equal the
    /// shape's (`bytes`), `plain` has 0xFF at each byte that must be a plain string character. The last
    /// word of a run overlaps the one before it, so that every load stays inside the run.
    struct ShapeWord {
        var bytes: SIMD16<UInt8>
        var exact: SIMD16<UInt8>
        var plain: SIMD16<UInt8>
        var offset: Int
        /// Whether any byte must be a plain string character: most words are all keys and white space,
        /// and their plain check is skipped (the branch repeats with the shape, so it is predicted).
        var hasPlain: Bool
    }

    /// What ends a run: a value read the usual way, or the end of the element.
    enum ShapeValue {
        case number, string, none
    }

    /// The largest element (with its separator) whose shape is kept, in bytes; and how many runs and words
    /// a shape may have. A larger element is read the usual way.
    static let maximumShapeBytes = 1024
    static let maximumShapeRuns = 32
    static let maximumShapeWords = 160

    /// Arrays this deep or deeper are skipped by the plain loop: each level here is a call with buffers of
    /// its own, and hostile nesting must not grow the stack.
    static let maximumShapeDepth = 8

    /// Skips an array (the cursor on `[`), validating it fully.
    mutating func skipArrayOfShapes() throws(JSONSyntaxError) {
        var none: [Int] = []
        try skipArrayOfShapes(noting: &none, keepStarts: false)
    }

    /// Skips an array (the cursor on `[`), validating it fully, and appends to `starts` where each of its
    /// elements begins: for a reader that comes back to some of them (the weekly trend, newest first).
    public mutating func skipArray(notingStarts starts: inout [Int]) throws(JSONSyntaxError) {
        try skipArrayOfShapes(noting: &starts, keepStarts: true)
    }

    private mutating func skipArrayOfShapes(noting starts: inout [Int], keepStarts: Bool) throws(JSONSyntaxError) {
        try enterArray()
        let opening = index - 1
        if peek() == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return
        }
        let memory: ShapeMemory
        if let kept = shapeMemory {
            memory = kept
        } else {
            memory = ShapeMemory()
            shapeMemory = memory
        }
        // The shape in use: none yet, or none any more (this array does not repeat).
        var current: ShapeMemory.Taken?
        var gaveUp = false
        var triedKept = false
        var hits = 0
        var everMatched = false
        var misses = 0
        // The first element: by a kept shape, its `[` standing for the separator; else the usual way.
        if let slot = matchKept(memory, from: opening, first: true) {
            if keepStarts { starts.append(opening + memory.slots[slot].elementOffset) }
            current = memory.taken(slot)
            hits = 1
            everMatched = true
            triedKept = true
        } else {
            if keepStarts { starts.append(index) }
            try skipValue()
        }
        // A stretch to take the shape of, once another element is seen to follow it: an array of two
        // elements (a log line's content, mostly) never pays for a shape.
        var pending: Range<Int>?
        while true {
            if let stretch = pending {
                pending = nil
                if nextByteAfterWhitespace() == UInt8(ascii: ",") {
                    let slot = memory.slotToReplace()
                    let runCount = takeShape(
                        from: stretch.lowerBound, to: stretch.upperBound, runs: memory.runs(slot),
                        words: memory.words(slot))
                    memory.keep(
                        slot, runCount: runCount, elementOffset: offsetOfElement(in: stretch), depth: depth,
                        opensWithSeparator: base[stretch.lowerBound] == UInt8(ascii: ","))
                    if runCount > 0 {
                        current = memory.taken(slot)
                    } else {
                        current = nil
                        gaveUp = true
                    }
                    hits = 0
                }
            }
            if current == nil, !gaveUp, !triedKept {
                // The second element: the shapes of earlier arrays, before taking one of its own.
                triedKept = true
                let unitStart = index
                if nextByteAfterWhitespace() == UInt8(ascii: ","), let slot = matchKept(memory, from: unitStart) {
                    if keepStarts { starts.append(unitStart + memory.slots[slot].elementOffset) }
                    current = memory.taken(slot)
                    hits = 1
                    everMatched = true
                    continue
                }
            }
            // An element read the usual way may hold arrays that kept shapes of their own in this array's
            // slot: it then holds another shape, or none (matched, an empty shape passed over nothing, for
            // ever). This array takes a shape anew.
            if let taken = current, !memory.stillHolds(taken) {
                current = nil
                hits = 0
            }
            if let slot = current?.slot {
                let matched = matchRepeatedly(
                    memory.runs(slot), memory.slots[slot].runCount, memory.words(slot),
                    elementOffset: memory.slots[slot].elementOffset, noting: &starts, keepStarts: keepStarts)
                if matched > 0 {
                    hits += matched
                    everMatched = true
                    misses = 0
                }
                // The element after the last one matched (or the array's end) did not match.
                misses += 1
                // Two shapes in a row that never matched: the elements differ; stop trying.
                if misses == 8 || (!everMatched && misses == 2) {
                    current = nil
                    gaveUp = true
                }
            }
            let unitStart = index
            let byte = peek()
            if byte == UInt8(ascii: "]") {
                index += 1
                depth -= 1
                return
            }
            guard byte == UInt8(ascii: ",") else { throw error }
            index += 1
            skipWhitespace()
            if keepStarts { starts.append(index) }
            try skipValue()
            // A shape that has matched survives one odd element; one that never matched, or that has
            // stopped matching, is replaced by the newest.
            if !gaveUp && (current == nil || hits == 0 || misses >= 2) {
                pending = unitStart..<index
            }
        }
    }

    /// Passes over one stretch by the first kept shape (taken at this depth) that matches it, from
    /// `start`, and says which; or leaves the cursor where it was. For an array's first element, `start`
    /// is its `[`, which stands where the shape has its separator (the white space after either is the
    /// same in a record written by one writer, and is compared); only a shape whose first byte is that
    /// separator can be used so (one taken from `1 ,2` begins with a space, and would let `[,2` pass).
    private mutating func matchKept(_ memory: ShapeMemory, from start: Int, first: Bool = false) -> Int? {
        let resume = index
        for slot in memory.slots.indices where memory.slots[slot].runCount > 0 && memory.slots[slot].depth == depth {
            if first && !(memory.slots[slot].opensWithSeparator && memory.runs(slot)[0].wordCount > 0) { continue }
            index = start
            let runs = memory.runs(slot)
            let words = memory.words(slot)
            // The shape's first byte (its separator) is the first lane of its first word: not compared while
            // the `[` stands there.
            let separator = runs[0].firstWord
            let exact = words[separator].exact
            if first { words[separator].exact[0] = 0 }
            let matched = matchShape(runs, memory.slots[slot].runCount, words)
            words[separator].exact = exact
            if matched {
                memory.touch(slot)
                return slot
            }
        }
        index = resume
        return nil
    }

    /// How far into a validated stretch (white space, `,`, white space, an element) its element begins.
    private func offsetOfElement(in stretch: Range<Int>) -> Int {
        var at = stretch.lowerBound
        while at < stretch.upperBound, base[at] != UInt8(ascii: ",") { at += 1 }
        at += 1
        while at < stretch.upperBound, base[at] <= 0x20 { at += 1 }
        return at - stretch.lowerBound
    }

    /// The byte after any white space at the cursor, without moving it; 0 at the end.
    private func nextByteAfterWhitespace() -> UInt8 {
        var at = index
        while at < count, base[at] == 0x20 || base[at] == 0x0A || base[at] == 0x0D || base[at] == 0x09 { at += 1 }
        return at < count ? base[at] : 0
    }

    /// 0xFF at each byte that cannot stand unescaped in a string (a control character, `"`, `\\`) or
    /// begins a multi-byte character. Written with vector operands only: that is what compiles to a few
    /// SSE2 or NEON instructions (a scalar operand makes the comparison a loop over lanes).
    @inline(__always)
    private static func notPlain(_ bytes: SIMD16<UInt8>) -> SIMD16<UInt8> {
        // As signed bytes, everything from 0x80 up is negative: one comparison finds it and the controls.
        let low = unsafeBitCast(bytes, to: SIMD16<Int8>.self) .< SIMD16<Int8>(repeating: 0x20)
        let quote = bytes .== SIMD16<UInt8>(repeating: UInt8(ascii: "\""))
        let backslash = bytes .== SIMD16<UInt8>(repeating: UInt8(ascii: "\\"))
        return unsafeBitCast(low .| quote .| backslash, to: SIMD16<UInt8>.self)
    }

    /// Passes over as many stretches of the given shape as follow one another, noting where each one's
    /// element begins, and says how many; the cursor is left before the first that does not match. One
    /// loop with the shape at hand: most of an array is matched here, and a call per element (with the
    /// shape looked up again) cost a quarter as much as matching the element.
    private mutating func matchRepeatedly(
        _ runs: UnsafeMutableBufferPointer<ShapeRun>, _ runCount: Int, _ words: UnsafeMutableBufferPointer<ShapeWord>,
        elementOffset: Int, noting starts: inout [Int], keepStarts: Bool
    ) -> Int {
        // An empty shape passes over nothing, and would be matched again for ever; any other passes over at
        // least its separator.
        guard runCount > 0 else { return 0 }
        var matched = 0
        while true {
            let unitStart = index
            guard matchShape(runs, runCount, words) else { return matched }
            if keepStarts { starts.append(unitStart + elementOffset) }
            matched += 1
        }
    }

    /// Passes over one stretch of the given shape and says so, or leaves the cursor where it was. Inlined
    /// into `matchRepeatedly`'s loop, where the shape and the document stay in registers from element to
    /// element.
    @inline(__always)
    private mutating func matchShape(
        _ runs: UnsafeMutableBufferPointer<ShapeRun>, _ runCount: Int, _ words: UnsafeMutableBufferPointer<ShapeWord>
    ) -> Bool {
        let start = index
        // The cursor in a local while the runs are matched (the scanner's own `index` only around the
        // readers called for unusual values), so that it stays in a register instead of being stored
        // after every run.
        var cursor = index
        let base = self.base
        let count = self.count
        // Unchecked arithmetic and pointers below: the cursor stays within the document (each run is
        // checked to fit before its words are loaded), and a shape's runs and words were built within
        // its buffers.
        let firstRun = runs.baseAddress.unsafelyUnwrapped
        let firstWord = UnsafePointer(words.baseAddress.unsafelyUnwrapped)
        // The differences of every run, judged once at the end: a run's length does not depend on its
        // bytes, so the values between runs are found at the same places either way, and reading them
        // from bytes that differ is only wasted (each read is bounds-checked and fails or stops).
        var wrong = SIMD16<UInt8>.zero
        for position in 0..<runCount {
            let run = firstRun[position]
            guard cursor &+ run.reach <= count else {
                index = start
                return false
            }
            let at = UnsafeRawPointer(base + cursor)
            var word = firstWord + run.firstWord
            // Two words a step: the loop's own counting and branching cost as much as a word's compare.
            var left = run.wordCount
            while left >= 2 {
                let first = at.loadUnaligned(fromByteOffset: word[0].offset, as: SIMD16<UInt8>.self)
                let second = at.loadUnaligned(fromByteOffset: word[1].offset, as: SIMD16<UInt8>.self)
                wrong |= (first ^ word[0].bytes) & word[0].exact | (second ^ word[1].bytes) & word[1].exact
                if word[0].hasPlain { wrong |= JSONScanner.notPlain(first) & word[0].plain }
                if word[1].hasPlain { wrong |= JSONScanner.notPlain(second) & word[1].plain }
                word += 2
                left &-= 2
            }
            if left == 1 {
                let bytes = at.loadUnaligned(fromByteOffset: word.pointee.offset, as: SIMD16<UInt8>.self)
                wrong |= (bytes ^ word.pointee.bytes) & word.pointee.exact
                if word.pointee.hasPlain { wrong |= JSONScanner.notPlain(bytes) & word.pointee.plain }
            }
            cursor &+= run.length
            switch run.value {
            case .number:
                // The run's reach covers the bytes the short form reads; other numbers byte by byte.
                let length = JSONScanner.shortNumberLength(base + cursor)
                if length > 0 {
                    cursor &+= length
                } else {
                    index = cursor
                    guard (try? skipNumberByteWise()) != nil else {
                        index = start
                        return false
                    }
                    cursor = index
                }
            case .string:
                index = cursor
                // The string must begin right here (`readRawString` would pass white space first).
                guard cursor < count, base[cursor] == UInt8(ascii: "\""), (try? readRawString()) != nil else {
                    index = start
                    return false
                }
                cursor = index
            case .none:
                break
            }
        }
        // As two words: comparing the vector with zero lane by lane compiles to a long shuffle.
        let halves = unsafeBitCast(wrong, to: SIMD2<UInt64>.self)
        guard halves[0] | halves[1] == 0 else {
            index = start
            return false
        }
        index = cursor
        return true
    }
}
