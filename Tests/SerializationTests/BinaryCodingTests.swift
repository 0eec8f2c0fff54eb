import Foundation
import TestSupport
import Testing

@testable import Serialization

struct BinaryCodingTests {
    @Test("doubles read in one pass are the doubles written one by one; a count past the end is refused")
    func doubles() throws {
        var generator = SeededGenerator(seed: 8)
        let values = (0..<1000).map { _ in Double(bitPattern: generator.next()) } + [0, -0.0, .infinity, 1.5]
        var out = BinaryWriter(capacity: 64)
        out.u32(UInt32(values.count))
        for value in values { out.double(value) }
        out.u8(7)
        let bytes = Array(out.bytes)
        try bytes.withUnsafeBytes { buffer in
            var input = BinaryReader(buffer)
            let read = try input.doubles(Int(try input.u32()))
            #expect(read.map(\.bitPattern) == values.map(\.bitPattern))
            #expect(try input.u8() == 7)
            for count in [values.count + 1, Int.max / 4, -1] {
                var again = BinaryReader(buffer)
                _ = try again.u32()
                #expect(throws: BinaryReader.Corrupt.self, "\(count)") { try again.doubles(count) }
            }
            var records = BinaryReader(buffer)
            #expect(try records.records(2, size: 4).count == 8)
            #expect(throws: BinaryReader.Corrupt.self) { try records.records(Int.max, size: 32) }
        }
    }

    @Test("a kept moment is read back from year 1 to 9999; one beyond, or not a number, is refused")
    func dates() throws {
        let kept: [Date] = [.distantPast, .distantFuture, Date(timeIntervalSince1970: 0), Date()]
        let refused: [Double] = [-1e300, 1e300, .infinity, -.infinity, .nan, 252_423_993_601]
        var out = BinaryWriter(capacity: 64)
        for date in kept { out.date(date) }
        for seconds in refused { out.double(seconds) }
        let bytes = Array(out.bytes)
        let read: [Date?] = bytes.withUnsafeBytes { buffer in
            var input = BinaryReader(buffer)
            return (0..<(kept.count + refused.count)).map { _ in
                do {
                    return try input.date()
                } catch {
                    // The refused eight bytes are still taken: go on to the next.
                    return nil
                }
            }
        }
        #expect(read == kept.map { $0 } + refused.map { _ in nil })
    }

    @Test("a list's count that the bytes left cannot hold is refused before anything is made for it")
    func countsAreBoundedByTheBytesLeft() throws {
        for (count, left, refused) in [(3, 3, false), (0, 0, false), (4, 3, true), (4_000_000_000, 16, true)] {
            var out = BinaryWriter(capacity: 32)
            out.u32(UInt32(count))
            out.raw([UInt8](repeating: 1, count: left))
            let bytes = Array(out.bytes)
            try bytes.withUnsafeBytes { buffer in
                var input = BinaryReader(buffer)
                if refused {
                    #expect(throws: BinaryReader.Corrupt.self, "\(count)") { try input.count() }
                } else {
                    #expect((try? input.count()) == count)
                }
            }
        }
    }
}
