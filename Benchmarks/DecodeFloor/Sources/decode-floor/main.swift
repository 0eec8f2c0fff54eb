// The floor under a cold `status --json`: on the same files, single-threaded and with the page cache
// warm, the best of seven passes each of
//   read       open, read to the end and close every file (what the kernel's copy costs),
//   touch      one pass adding every byte (the cheapest loop that looks at each byte),
//   classify   one pass finding the bytes a JSON scanner must stop at (quote, backslash, control, non-ASCII),
//              eight at a time,
//   structure  finding string ends and bracket nesting, eight bytes at a time, validating nothing (the
//              least a skip of history could do),
//   decode     aggctl's record reader with history validated and skipped (what `status` does per record),
//   map        mapping every file (MAP_POPULATE) instead of reading it, one byte a page touched,
//   read+dec   reading each file into one buffer and decoding it there (what a cold `status` does),
//   map+dec    the same with each file mapped instead (why records are read, not mapped).
// usage: decode-floor STORE_FOLDER
import Foundation
import Snapshots

let folder = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "."
let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }.sorted()
let paths = names.map { folder + "/" + $0 }
let files = try paths.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
let total = files.reduce(0) { $0 + $1.count }
guard total > 0 else { fatalError("decode-floor: no records in '\(folder)'") }

func seconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

// DECODE_FLOOR_PASS=NAME runs only that pass (for a profiler).
let only = ProcessInfo.processInfo.environment["DECODE_FLOOR_PASS"]

func measure(_ name: String, _ pass: () throws -> Int) rethrows {
    if let only, only != name { return }
    var best = Double.infinity
    var sink = 0
    for _ in 0..<7 {
        let start = seconds()
        sink &+= try pass()
        best = min(best, seconds() - start)
    }
    print(
        name.padding(toLength: 10, withPad: " ", startingAt: 0)
            + String(format: "%8.2f ms %7.3f ns/byte   (%d)", best * 1000, best * 1e9 / Double(total), sink & 1))
}

print("\(files.count) records, \(String(format: "%.1f", Double(total) / 1e6)) MB")
let buffer = UnsafeMutableRawPointer.allocate(byteCount: 64 << 20, alignment: 16)
measure("read") {
    var count = 0
    for path in paths {
        let descriptor = open(path, O_RDONLY)
        while true {
            let got = read(descriptor, buffer, 64 << 20)
            if got <= 0 { break }
            count += got
        }
        close(descriptor)
    }
    return count
}
measure("touch") {
    var sum = 0
    for file in files {
        file.withUnsafeBytes { bytes in
            for byte in bytes { sum &+= Int(byte) }
        }
    }
    return sum
}
measure("classify") {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    var stops = 0
    for file in files {
        file.withUnsafeBytes { bytes in
            var offset = 0
            while offset + 8 <= bytes.count {
                let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                let quote = word ^ (ones &* 0x22)
                let backslash = word ^ (ones &* 0x5C)
                let special =
                    ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)
                    | word
                stops &+= (special & highs).nonzeroBitCount
                offset += 8
            }
        }
    }
    return stops
}
measure("structure") {
    // What skipping a value costs when nothing is validated: string ends (a quote not escaped) and the
    // nesting of brackets outside strings, the bytes that matter found eight at a time.
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    @inline(__always) func zeros(_ word: UInt64, _ byte: UInt64) -> UInt64 {
        let x = word ^ (ones &* byte)
        return (x &- ones) & ~x & highs
    }
    var depthSum = 0
    for file in files {
        file.withUnsafeBytes { bytes in
            var offset = 0
            var inString = false
            var depth = 0
            while offset + 8 <= bytes.count {
                let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                var stops =
                    inString
                    ? zeros(word, 0x22) | zeros(word, 0x5C)
                    : zeros(word, 0x22) | zeros(word, 0x5B) | zeros(word, 0x5D) | zeros(word, 0x7B) | zeros(word, 0x7D)
                if stops == 0 {
                    offset += 8
                    continue
                }
                // Only the lowest stop is exact: take it, then look again from just after it.
                stops &= 0 &- stops
                let at = offset + stops.trailingZeroBitCount >> 3
                switch bytes[at] {
                case 0x22: inString.toggle()
                case 0x5C:
                    offset = at + 2
                    continue
                case 0x5B, 0x7B: depth += 1
                default: depth -= 1
                }
                offset = at + 1
            }
            depthSum &+= depth
        }
    }
    return depthSum
}
try measure("decode") {
    var providers = 0
    for (index, file) in files.enumerated() {
        providers += try RecordCodec.decode(file, fileName: names[index], history: .skip).snapshot.providers.count
    }
    return providers
}
/// `path` mapped whole (MAP_POPULATE: every page in place before the first byte is read), its size.
func mapped(_ path: String) -> (UnsafeMutableRawPointer, Int) {
    let descriptor = open(path, O_RDONLY)
    defer { close(descriptor) }
    var info = stat()
    fstat(descriptor, &info)
    let size = Int(info.st_size)
    return (mmap(nil, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, descriptor, 0)!, size)
}
measure("map") {
    var count = 0
    for path in paths {
        let (address, size) = mapped(path)
        let bytes = address.assumingMemoryBound(to: UInt8.self)
        var offset = 0
        while offset < size {
            count &+= Int(bytes[offset])
            offset += 4096
        }
        munmap(address, size)
    }
    return count
}
try measure("read+dec") {
    var providers = 0
    for (index, path) in paths.enumerated() {
        let descriptor = open(path, O_RDONLY)
        var size = 0
        while true {
            let got = read(descriptor, buffer + size, (64 << 20) - size)
            if got <= 0 { break }
            size += got
        }
        close(descriptor)
        providers += try RecordCodec.decode(
            Data(bytesNoCopy: buffer, count: size, deallocator: .none), fileName: names[index], history: .skip
        ).snapshot.providers.count
    }
    return providers
}
try measure("map+dec") {
    var providers = 0
    for (index, path) in paths.enumerated() {
        let (address, size) = mapped(path)
        providers += try RecordCodec.decode(
            Data(bytesNoCopy: address, count: size, deallocator: .none), fileName: names[index], history: .skip
        ).snapshot.providers.count
        munmap(address, size)
    }
    return providers
}
