import CShims

/// How many cores this process may use, as FoundationEssentials' `activeProcessorCount` counts them on
/// Linux: the CPUs in its affinity mask, capped by a CPU quota of its cgroup (a container's `--cpus`,
/// rounded up), at least one. Read with one system call and at most two small files: `ProcessInfo`'s
/// first use built the whole `ProcessInfo` and looked up conformances at run time, a fiftieth of a warm
/// `status`. Elsewhere (macOS) Foundation answers.
public enum Processors {
    public static func available() -> Int {
        #if os(Linux)
            var count = Int(aggctl_affinity_cpus())
            if count == 0 { count = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }
            if let quota = quotaCores() { count = min(count, quota) }
            return max(1, count)
        #else
            return ProcessInfo.processInfo.activeProcessorCount
        #endif
    }

    #if os(Linux)
        /// The cgroup's CPU quota in whole cores (rounded up); nil without one. cgroup v2 writes
        /// "QUOTA PERIOD" or "max PERIOD" to `cpu.max`; v1 has the two numbers in files of their own.
        public static func quotaCores(root: String = "/sys/fs/cgroup") -> Int? {
            func numbers(_ path: String) -> [Int]? {
                guard let data = FileSystem.contents(of: path) else { return nil }
                return String(decoding: data, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
                    .map { Int($0) ?? -1 }
            }
            let quota: Int
            let period: Int
            if let both = numbers(root + "/cpu.max"), both.count == 2 {
                (quota, period) = (both[0], both[1])
            } else if let first = numbers(root + "/cpu/cpu.cfs_quota_us")?.first,
                let second = numbers(root + "/cpu/cpu.cfs_period_us")?.first
            {
                (quota, period) = (first, second)
            } else {
                return nil
            }
            guard quota > 0, period > 0 else { return nil }
            return max(1, (quota + period - 1) / period)
        }
    #endif
}

/// The memory allocator's settings for long-running commands.
public enum Allocator {
    /// Caps the allocator's arenas (glibc: one per thread that allocates, up to eight per core, whose
    /// freed memory never returns to the system in full): `watch` keeps two. Nothing elsewhere.
    public static func limitArenas(to count: Int) {
        _ = aggctl_limit_malloc_arenas(Int32(count))
    }
}
