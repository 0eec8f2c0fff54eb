import Dispatch
import Foundation

/// Splits work over the machine's cores: the merge of a large store is a few passes over thousands of
/// independent items (records, accounts, report entries), each worth doing on every core.
public enum Parallel {
    /// How many workers to use for `count` items: every core, but not more workers than items.
    public static func workers(for count: Int, minimumPerWorker: Int = 1) -> Int {
        max(1, min(ProcessInfo.processInfo.activeProcessorCount, count / max(1, minimumPerWorker)))
    }

    /// Calls `body` with consecutive ranges covering `0..<count` (one per worker, in order) and returns
    /// their results in that order. Below `minimumPerWorker` items per worker it stays on this thread.
    public static func mapRanges<Result>(
        _ count: Int, minimumPerWorker: Int = 64, _ body: @Sendable (Range<Int>) -> Result
    ) -> [Result] {
        let workers = workers(for: count, minimumPerWorker: minimumPerWorker)
        if workers == 1 { return [body(0..<count)] }
        let results = UnsafeMutableBufferPointer<Result?>.allocate(capacity: workers)
        results.initialize(repeating: nil)
        defer { results.deallocate() }
        // Each worker writes only its own slot.
        nonisolated(unsafe) let shared = results
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            let start = count * worker / workers
            let end = count * (worker + 1) / workers
            shared[worker] = body(start..<end)
        }
        return results.map { $0! }
    }
}
