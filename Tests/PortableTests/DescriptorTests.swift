import Foundation
import Testing

@testable import Portable

/// The gathering write `status --json` sends a kept document with: every piece, in order, through short
/// writes and more pieces than one `writev` takes.
struct DescriptorTests {
    @Test("pieces arrive whole and in order through a pipe read slowly, more of them than one call takes")
    func gatheringWrite() throws {
        var pipeEnds: [Int32] = [0, 0]
        #expect(pipe(&pipeEnds) == 0)
        // Pieces of every length, the empty one included; over 4 MB in 5000 pieces, so IOV_MAX splits the
        // list and each call waits on the slow reader. (A blocking pipe finishes each call it takes; writes
        // that stop part way are `advancePastShortWrites`'s.)
        var generator = SystemRandomNumberGenerator()
        let pieces: [[UInt8]] = (0..<5000).map { index in
            (0..<Int.random(in: 0...1700, using: &generator)).map { UInt8(truncatingIfNeeded: index &+ $0) }
        }
        let expected = pieces.flatMap { $0 }
        let received = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: expected.count + 1)
        defer { received.deallocate() }
        nonisolated(unsafe) let target = received
        let readEnd = pipeEnds[0]
        let group = DispatchGroup()
        nonisolated(unsafe) var total = 0
        DispatchQueue.global().async(group: group) {
            while true {
                let count = read(readEnd, target.baseAddress! + total, min(4096, target.count - total))
                if count <= 0 { break }
                total += count
                usleep(20)
            }
        }
        let result = withPieces(pieces) { Descriptor.writeAll(pipeEnds[1], pieces: $0) }
        close(pipeEnds[1])
        group.wait()
        close(readEnd)
        #expect(result == 0)
        #expect(total == expected.count)
        #expect(Array(received[0..<total]) == expected)
    }

    @Test("after a write that stopped anywhere, the next one starts at the first byte not written")
    func advancePastShortWrites() {
        let bytes = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 1)
        defer { bytes.deallocate() }
        func vectors() -> [iovec] {
            [
                iovec(iov_base: bytes, iov_len: 10), iovec(iov_base: bytes + 10, iov_len: 5),
                iovec(iov_base: bytes + 15, iov_len: 20),
            ]
        }
        for (written, expectedFirst, expectedStart, expectedLength) in [
            (0, 0, 0, 10), (3, 0, 3, 7), (10, 1, 10, 5), (12, 1, 12, 3), (15, 2, 15, 20), (34, 2, 34, 1),
        ] {
            var list = vectors()
            var first = 0
            Descriptor.advance(&list, from: &first, by: written)
            #expect(first == expectedFirst, "\(written)")
            #expect(
                list[first].iov_base! - bytes == expectedStart && list[first].iov_len == expectedLength, "\(written)")
        }
        var list = vectors()
        var first = 0
        Descriptor.advance(&list, from: &first, by: 35)
        #expect(first == 3)
    }

    @Test("a write that fails says why")
    func failedWrite() {
        // Opened for reading only (a closed pipe would say EPIPE, but by a signal that ends the test run).
        let readOnly = open("/dev/null", O_RDONLY)
        defer { close(readOnly) }
        #expect(withPieces([[1, 2, 3], [4]]) { Descriptor.writeAll(readOnly, pieces: $0) } == EBADF)
        #expect(withPieces([[1]]) { Descriptor.writeAll(-1, pieces: $0) } == EBADF)
        #expect(withPieces([[], []]) { Descriptor.writeAll(-1, pieces: $0) } == 0)
    }

    private func withPieces(_ pieces: [[UInt8]], _ body: ([UnsafeRawBufferPointer]) -> Int32) -> Int32 {
        let storage = pieces.map { piece in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(piece.count, 1), alignment: 1)
            buffer.copyBytes(from: piece)
            return (buffer, piece.count)
        }
        defer { for (buffer, _) in storage { buffer.deallocate() } }
        return body(storage.map { UnsafeRawBufferPointer(rebasing: $0.0[0..<$0.1]) })
    }
}
