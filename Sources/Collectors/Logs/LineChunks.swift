import Portable

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a file in pieces of whole lines, so that logs of any size are scanned in bounded memory.
///
/// Each piece handed to `body` ends at a line break (or at the end of the file); a line cut by a piece
/// boundary is carried into the next piece. A single line longer than `maximumLine` is skipped: no log
/// event is that long, and it must not grow the buffer without bound.
enum LineChunks {
    static let pieceSize = 4 * 1024 * 1024
    static let maximumLine = 64 * 1024 * 1024

    /// - Parameters:
    ///   - offset: where to start (the end of what an earlier scan consumed).
    ///   - completeLinesOnly: leave a last line without a line break unread, for a writer still writing
    ///     it; the returned offset then stops before it.
    /// - Returns: the offset just past the last byte handed out.
    @discardableResult
    static func forEachPiece(
        of path: String, from offset: Int = 0, completeLinesOnly: Bool = false, pieceSize: Int = pieceSize,
        maximumLine: Int = maximumLine, _ body: (UnsafeRawBufferPointer) -> Void
    ) throws -> Int {
        // Without blocking, and only a regular file: a FIFO put where a log was found must not hang the run.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CollectorError("cannot read '\(path)': \(String(cString: strerror(errno)).lowercased())")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw CollectorError("cannot read '\(path)': not a regular file")
        }
        if offset > 0 && lseek(descriptor, off_t(offset), SEEK_SET) < 0 {
            throw CollectorError("cannot read '\(path)': \(String(cString: strerror(errno)).lowercased())")
        }
        var consumed = offset
        var capacity = pieceSize
        var buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        defer { buffer.deallocate() }
        var filled = 0
        var skippingLongLine = false
        while true {
            let count = read(descriptor, buffer + filled, capacity - filled)
            if count < 0 {
                if errno == EINTR { continue }
                throw CollectorError("cannot read '\(path)': \(String(cString: strerror(errno)).lowercased())")
            }
            if count == 0 {
                if filled > 0 && !skippingLongLine && !completeLinesOnly {
                    body(UnsafeRawBufferPointer(start: buffer, count: filled))
                    consumed += filled
                }
                return consumed
            }
            filled += count
            // Everything up to the last line break is complete; the rest waits for the next read.
            guard let lastBreak = lastLineBreak(buffer, filled) else {
                if filled == capacity {
                    if capacity >= maximumLine {
                        skippingLongLine = true
                        consumed += filled
                        filled = 0
                    } else {
                        let larger = UnsafeMutableRawPointer.allocate(byteCount: capacity * 2, alignment: 16)
                        larger.copyMemory(from: buffer, byteCount: filled)
                        buffer.deallocate()
                        buffer = larger
                        capacity *= 2
                    }
                }
                continue
            }
            var start = 0
            if skippingLongLine {
                start = firstLineBreak(buffer, lastBreak + 1).map { $0 + 1 } ?? 0
                skippingLongLine = false
            }
            if lastBreak + 1 > start {
                body(UnsafeRawBufferPointer(start: buffer + start, count: lastBreak + 1 - start))
            }
            consumed += lastBreak + 1
            let rest = filled - (lastBreak + 1)
            if rest > 0 { (buffer).copyMemory(from: buffer + lastBreak + 1, byteCount: rest) }
            filled = rest
        }
    }

    /// From the end backwards (`memrchr` is a GNU extension); the last break is usually near the end.
    private static func lastLineBreak(_ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int? {
        let bytes = buffer.assumingMemoryBound(to: UInt8.self)
        var index = count - 1
        while index >= 0 {
            if bytes[index] == 0x0A { return index }
            index -= 1
        }
        return nil
    }

    private static func firstLineBreak(_ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int? {
        guard let found = memchr(buffer, 0x0A, count) else { return nil }
        return buffer.distance(to: UnsafeMutableRawPointer(found))
    }
}
