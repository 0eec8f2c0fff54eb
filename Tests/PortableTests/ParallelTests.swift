import Foundation
import Testing

@testable import Portable

/// Counts live instances, so a test can see that nothing made is leaked or freed twice.
final class Tracked: @unchecked Sendable {
    nonisolated(unsafe) static var live = 0
    static let lock = NSLock()
    let value: Int

    init(_ value: Int) {
        self.value = value
        Tracked.lock.lock()
        Tracked.live += 1
        Tracked.lock.unlock()
    }

    deinit {
        Tracked.lock.lock()
        Tracked.live -= 1
        Tracked.lock.unlock()
    }
}

@Suite(.serialized)
struct ParallelTests {
    struct Stop: Error {}

    @Test("pieces made on several cores land in order")
    func order() throws {
        for count in [0, 1, 7, 1000] {
            let pieces = Parallel.evenPieces(count, minimumPerWorker: 1)
            let made = try Parallel.makeArray(count: count, pieces: pieces.isEmpty ? [0..<0] : pieces) { piece, emit in
                for index in (pieces.isEmpty ? 0..<0 : pieces[piece]) { emit(index * 2) }
            }
            #expect(made == (0..<count).map { $0 * 2 })
        }
    }

    @Test("a piece that fails releases everything made, and the error comes out")
    func failureReleases() {
        let before = Tracked.live
        let pieces = [0..<50, 50..<100, 100..<150]
        #expect(throws: Stop.self) {
            _ = try Parallel.makeArray(count: 150, pieces: pieces) { piece, emit in
                for index in pieces[piece] {
                    if piece == 1 && index == 70 { throw Stop() }
                    emit(Tracked(index))
                }
            }
        }
        #expect(Tracked.live == before)
    }

    @Test("a piece that emits too few elements is an error, not a hole")
    func wrongCount() {
        let before = Tracked.live
        #expect(throws: ParallelError.self) {
            _ = try Parallel.makeArray(count: 10, pieces: [0..<5, 5..<10]) { piece, emit in
                for index in 0..<(piece == 0 ? 5 : 4) { emit(Tracked(index)) }
            }
        }
        #expect(Tracked.live == before)
    }

    @Test("results made on several cores are released with the array they are returned in")
    func mapRangesReleases() {
        let before = Tracked.live
        do {
            let results = Parallel.mapRanges(1000, minimumPerWorker: 10) { range in range.map { Tracked($0) } }
            #expect(results.count == min(Parallel.cores, 100))
            #expect(results.joined().map(\.value) == Array(0..<1000))
        }
        // Before the fix the buffer that held each worker's result was freed without releasing it: every
        // call leaked what its workers made (a long `watch` grew by a listing each round).
        #expect(Tracked.live == before)
    }

    @Test("more workers than cores run all at once, each index once (work that waits, on a thread each)")
    func moreWorkersThanCoresRunAllAtOnce() {
        let count = 12
        let lock = NSLock()
        nonisolated(unsafe) var arrived = 0
        nonisolated(unsafe) var ran = [Int](repeating: 0, count: count)
        nonisolated(unsafe) var together = 0
        Parallel.perform(count) { index in
            lock.lock()
            arrived += 1
            ran[index] += 1
            lock.unlock()
            // Each waits (up to 5 s) for all the others to arrive: on as many threads as there are cores
            // only that many ever would, and every one would give up waiting.
            let deadline = Date().addingTimeInterval(5)
            while Date() < deadline {
                lock.lock()
                let all = arrived == count
                lock.unlock()
                if all {
                    lock.lock()
                    together += 1
                    lock.unlock()
                    return
                }
                usleep(1000)
            }
        }
        #expect(ran == [Int](repeating: 1, count: count))
        #expect(together == count)
    }
}
