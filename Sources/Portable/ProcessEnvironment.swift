/// The process's environment as a dictionary, read from `environ` directly on Linux.
///
/// `ProcessInfo.processInfo.environment` builds the whole `ProcessInfo` first (host and process names,
/// arguments): a tenth of a status bar's warm run. As there, a variable listed twice keeps its first value
/// (the one `getenv` returns), and an entry without `=` is left out. Elsewhere (macOS) Foundation's
/// `ProcessInfo` is the one at hand.
public enum ProcessEnvironment {
    public static func current() -> [String: String] {
        #if canImport(Glibc)
            let entries = environ
            guard Int(bitPattern: entries) != 0 else { return [:] }  // after `clearenv`
            var count = 0
            while entries[count] != nil { count += 1 }
            // Sized once: growing it entry by entry was most of what reading the environment cost.
            var variables = [String: String](minimumCapacity: count)
            var index = 0
            while let entry = entries[index] {
                index += 1
                let length = strlen(entry)
                let bytes = UnsafeRawBufferPointer(start: entry, count: length).bindMemory(to: UInt8.self)
                guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")), equals > 0 else { continue }
                let name = String(decoding: bytes[..<equals], as: UTF8.self)
                if variables[name] == nil {
                    variables[name] = String(decoding: bytes[(equals + 1)...], as: UTF8.self)
                }
            }
            return variables
        #else
            return ProcessInfo.processInfo.environment
        #endif
    }
}
