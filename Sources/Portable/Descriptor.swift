#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Small POSIX helpers shared by everything that writes files or streams.
public enum Descriptor {
    /// Writes all of `bytes` to `descriptor`, retrying short writes and interruptions.
    ///
    /// - Returns: 0 on success, else the `errno` of the failing write.
    public static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        writeAll(descriptor, pieces: [bytes])
    }

    /// The most pieces one `writev` takes (IOV_MAX, 1024 on Linux and macOS; POSIX promises 16).
    public static let maximumPieces = max(16, sysconf(Int32(_SC_IOV_MAX)))

    /// Writes every piece, in order, with as few calls as `writev` allows (IOV_MAX pieces a call), going
    /// on after a short write from where it stopped; 0, or the `errno` of the first failed call.
    public static func writeAll(_ descriptor: Int32, pieces: [UnsafeRawBufferPointer]) -> Int32 {
        var vectors: [iovec] = []
        vectors.reserveCapacity(pieces.count)
        for piece in pieces where piece.count > 0 {
            vectors.append(iovec(iov_base: UnsafeMutableRawPointer(mutating: piece.baseAddress), iov_len: piece.count))
        }
        let limit = maximumPieces
        var first = 0
        while first < vectors.count {
            let batch = min(vectors.count - first, limit)
            let written = vectors.withUnsafeMutableBufferPointer { vectors in
                writev(descriptor, vectors.baseAddress! + first, Int32(batch))
            }
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            advance(&vectors, from: &first, by: written)
        }
        return 0
    }

    /// Moves past `written` bytes of `vectors` from `first`: past the pieces written whole, then into the
    /// one written in part (a write may stop anywhere: a signal, a socket's buffer).
    static func advance(_ vectors: inout [iovec], from first: inout Int, by written: Int) {
        var remaining = written
        while first < vectors.count && remaining >= vectors[first].iov_len {
            remaining -= vectors[first].iov_len
            first += 1
        }
        if remaining > 0 {
            vectors[first].iov_base = vectors[first].iov_base! + remaining
            vectors[first].iov_len -= remaining
        }
    }
}
