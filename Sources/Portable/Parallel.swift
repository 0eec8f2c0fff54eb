import Dispatch

/// Splits work over the machine's cores: the merge of a large store is a few passes over thousands of
/// independent items (records, accounts, report entries), each worth doing on every core.
public enum Parallel {
    /// How many workers to use for `count` items: every core, but not more workers than items.
    public static func workers(for count: Int, minimumPerWorker: Int = 1) -> Int {
        max(1, min(cores, count / max(1, minimumPerWorker)))
    }

    /// The cores this process may use, asked once (`Processors.available`).
    public static let cores = Processors.available()

    /// Has the pool start a thread on another core now, for a caller that will hand it work in a moment
    /// (a merge, which lists the store first): on a 2-core virtual machine a thread made only when the
    /// work arrived began a millisecond after the caller's own share, that core idle meanwhile. Once per
    /// process; nothing on one core.
    public static func startWorkers() {
        _ = workersStarted
    }

    private static let workersStarted: Bool = {
        guard cores > 1 else { return false }
        DispatchQueue.global().async {}
        return true
    }()

    /// Calls `body` with consecutive ranges covering `0..<count` (one per worker, in order) and returns
    /// their results in that order. Below `minimumPerWorker` items per worker it stays on this thread.
    public static func mapRanges<Result>(
        _ count: Int, minimumPerWorker: Int = 64, _ body: @Sendable (Range<Int>) -> Result
    ) -> [Result] {
        let workers = workers(for: count, minimumPerWorker: minimumPerWorker)
        if workers == 1 { return [body(0..<count)] }
        let results = UnsafeMutableBufferPointer<Result?>.allocate(capacity: workers)
        results.initialize(repeating: nil)
        // Deinitialized before the memory goes: the results are values that own storage, and freeing
        // the buffer alone leaked every one (a long `watch` grew by a listing each round).
        defer {
            results.deinitialize()
            results.deallocate()
        }
        // Each worker writes only its own slot.
        nonisolated(unsafe) let shared = results
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            let start = count * worker / workers
            let end = count * (worker + 1) / workers
            shared[worker] = body(start..<end)
        }
        return results.map { $0! }
    }

    /// An array made on every core, piece by piece, without joining: `make(p, emit)` produces the
    /// elements of `pieces[p]` in order and passes each to `emit`, which puts it straight into its slot
    /// of the result (joining arrays of large values copies each one and retains all it holds).
    ///
    /// `pieces` must cover `0..<count` in order. When a piece throws or emits the wrong number of
    /// elements, everything made is released and the first error is thrown.
    public static func makeArray<Element>(
        count: Int, pieces: [Range<Int>], _ make: @Sendable (Int, (consuming Element) -> Void) throws -> Void
    ) throws -> [Element] {
        precondition(
            pieces.first?.lowerBound ?? 0 == 0 && pieces.last?.upperBound ?? 0 == count
                && zip(pieces, pieces.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound },
            "pieces must cover 0..<count in order")
        let made = UnsafeMutableBufferPointer<Int>.allocate(capacity: max(1, pieces.count))
        made.initialize(repeating: 0)
        let failures = UnsafeMutableBufferPointer<(any Error)?>.allocate(capacity: max(1, pieces.count))
        failures.initialize(repeating: nil)
        defer {
            made.deallocate()
            failures.deinitialize()
            failures.deallocate()
        }
        return try [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
            // Each piece writes only its own slots and its own bookkeeping.
            nonisolated(unsafe) let slots = buffer
            nonisolated(unsafe) let sharedMade = made
            nonisolated(unsafe) let sharedFailures = failures
            DispatchQueue.concurrentPerform(iterations: pieces.count) { piece in
                let range = pieces[piece]
                var next = range.lowerBound
                do {
                    // Each element moved into its slot: a copy retained everything it holds (on the
                    // core that made it, the copy's release then on the one that frees the array).
                    try make(piece) { (element: consuming Element) in
                        if next < range.upperBound { (slots.baseAddress! + next).initialize(to: element) }
                        next += 1
                    }
                    if next != range.upperBound { throw ParallelError.wrongCount }
                } catch {
                    sharedFailures[piece] = error
                }
                sharedMade[piece] = min(next, range.upperBound) - range.lowerBound
            }
            if let failure = failures.lazy.compactMap({ $0 }).first {
                for (piece, range) in pieces.enumerated() {
                    (slots.baseAddress! + range.lowerBound).deinitialize(count: made[piece])
                }
                initialized = 0
                throw failure
            }
            initialized = count
        }
    }

    /// Runs `body(0..<count)` as `count` workers at once and returns when all have returned: on Dispatch's
    /// pool up to the cores; beyond, each on a thread of its own, for work that waits rather than computes
    /// (a network store's `readParallelism`). Dispatch's `concurrentPerform` and its queues run no more at
    /// once than there are cores, however long each waits (8 requests of 100 ms took 400 ms on 2 cores).
    public static func perform(_ count: Int, _ body: @Sendable (Int) -> Void) {
        if count > cores {
            onThreads(count, body)
        } else {
            DispatchQueue.concurrentPerform(iterations: count, execute: body)
        }
    }

    /// `body(0..<count)`, each on a thread of its own (the first on this one); a thread that cannot be
    /// started leaves its index to this one.
    private static func onThreads(_ count: Int, _ body: @Sendable (Int) -> Void) {
        withoutActuallyEscaping(body) { body in
            var started: [pthread_t] = []
            var leftOver: [Int] = []
            for index in 1..<count {
                if let thread = ThreadStart.spawn({ body(index) }) {
                    started.append(thread)
                } else {
                    leftOver.append(index)
                }
            }
            body(0)
            for index in leftOver { body(index) }
            // Each thread has released its share of `body` when it ends, before the join returns.
            for thread in started { pthread_join(thread, nil) }
        }
    }

    /// `count` split evenly into one piece per worker.
    public static func evenPieces(_ count: Int, minimumPerWorker: Int = 64) -> [Range<Int>] {
        let workers = workers(for: count, minimumPerWorker: minimumPerWorker)
        return (0..<workers).map { (count * $0 / workers)..<(count * ($0 + 1) / workers) }
    }
}

/// A piece of `Parallel.makeArray` emitted more or fewer elements than its range holds.
public enum ParallelError: Error {
    case wrongCount
}

/// What a thread of `Parallel.perform` runs beyond the cores, passed to `pthread_create` through its one pointer.
private final class ThreadStart {
    let run: () -> Void

    private init(_ run: @escaping () -> Void) {
        self.run = run
    }

    /// A joinable thread running `run`; nil when none could be started.
    static func spawn(_ run: @escaping () -> Void) -> pthread_t? {
        let context = Unmanaged.passRetained(ThreadStart(run)).toOpaque()
        #if canImport(Glibc)
            var thread = pthread_t()
            let result = pthread_create(
                &thread, nil,
                { context in
                    Unmanaged<ThreadStart>.fromOpaque(context!).takeRetainedValue().run()
                    return nil
                }, context)
            if result == 0 { return thread }
        #else
            var thread: pthread_t?
            let result = pthread_create(
                &thread, nil,
                { context in
                    Unmanaged<ThreadStart>.fromOpaque(context).takeRetainedValue().run()
                    return nil
                }, context)
            if result == 0, let thread { return thread }
        #endif
        Unmanaged<ThreadStart>.fromOpaque(context).release()
        return nil
    }
}
