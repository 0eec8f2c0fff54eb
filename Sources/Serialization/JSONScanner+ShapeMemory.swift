extension JSONScanner {
    /// Shapes kept from arrays read earlier, tried on a later array before it pays for one of its own.
    ///
    /// A record's entries repeat the same histories (each provider's `tokens.daily`, its
    /// `weeklySamples`), and the records of a store come from the same writer: once one array's shape is
    /// taken, the next array of its kind can be matched from its second element on, instead of reading
    /// that element byte by byte and taking the shape again (a shape costs as much as a few dozen
    /// matched elements). A shape holds copies of the bytes it was taken from, never pointers into a
    /// document, so it may be kept from one document to the next; it is used only at the depth it was
    /// taken at, where its elements were validated.
    ///
    /// Not thread-safe: one per reader (a store's read worker keeps one for all the records it reads).
    public final class ShapeMemory {
        /// One kept shape: where its runs and words are, and what it takes to use it.
        struct Slot {
            var runCount = 0
            var elementOffset = 0
            var depth = 0
            var lastUse = 0
            /// The shape's stretch begins with its `,` (no white space before it), so that an array's `[`
            /// can stand in that first byte's place.
            var opensWithSeparator = false
            /// Which keeping put this shape here (`keep` numbers each).
            var generation = 0
        }

        /// A slot's shape as an array took it: nested arrays read meanwhile may keep shapes of their own
        /// in that slot, and the array must then not use what is there (`stillHolds`).
        struct Taken {
            var slot: Int
            var generation: Int
        }

        func taken(_ slot: Int) -> Taken { Taken(slot: slot, generation: slots[slot].generation) }

        /// Whether the slot still holds the shape that was taken.
        func stillHolds(_ taken: Taken) -> Bool { slots[taken.slot].generation == taken.generation }

        /// Shapes kept at once: the kinds of history an entry has, with room to spare.
        static let capacity = 4

        private(set) var slots = [Slot](repeating: Slot(), count: capacity)
        private let runStorage: UnsafeMutableBufferPointer<ShapeRun>
        private let wordStorage: UnsafeMutableBufferPointer<ShapeWord>
        private var clock = 0
        private var keepings = 0

        public init() {
            runStorage = .allocate(capacity: Self.capacity * JSONScanner.maximumShapeRuns)
            wordStorage = .allocate(capacity: Self.capacity * JSONScanner.maximumShapeWords)
        }

        deinit {
            // ShapeRun and ShapeWord hold no references: nothing to deinitialize.
            runStorage.deallocate()
            wordStorage.deallocate()
        }

        func runs(_ slot: Int) -> UnsafeMutableBufferPointer<ShapeRun> {
            let first = slot * JSONScanner.maximumShapeRuns
            return UnsafeMutableBufferPointer(rebasing: runStorage[first..<(first + JSONScanner.maximumShapeRuns)])
        }

        func words(_ slot: Int) -> UnsafeMutableBufferPointer<ShapeWord> {
            let first = slot * JSONScanner.maximumShapeWords
            return UnsafeMutableBufferPointer(rebasing: wordStorage[first..<(first + JSONScanner.maximumShapeWords)])
        }

        /// Notes that `slot` was just used, so that it is the last to be replaced.
        func touch(_ slot: Int) {
            clock += 1
            slots[slot].lastUse = clock
        }

        /// The slot a new shape goes into: an empty one, else the one used longest ago.
        func slotToReplace() -> Int {
            var chosen = 0
            for slot in slots.indices where slots[slot].lastUse < slots[chosen].lastUse { chosen = slot }
            return chosen
        }

        /// Records what `slot` now holds (a `runCount` of 0 or less empties it).
        func keep(_ slot: Int, runCount: Int, elementOffset: Int, depth: Int, opensWithSeparator: Bool) {
            keepings += 1
            slots[slot] = Slot(
                runCount: max(runCount, 0), elementOffset: elementOffset, depth: depth, lastUse: 0,
                opensWithSeparator: opensWithSeparator, generation: keepings)
            if runCount > 0 { touch(slot) }
        }
    }
}
