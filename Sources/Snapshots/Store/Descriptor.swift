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
        guard let base = bytes.baseAddress else { return 0 }
        var offset = 0
        while offset < bytes.count {
            #if canImport(Glibc)
                let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
            #else
                let written = Darwin.write(descriptor, base + offset, bytes.count - offset)
            #endif
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += written
        }
        return 0
    }
}
