import CShims

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How aggctl starts every child program (hooks, desktop helpers, and the tests' servers): in a process
/// group of its own, so that a time limit stops the whole program; with an empty signal mask and
/// default dispositions, whatever the starting thread blocks or ignores (test threads block SIGTERM,
/// and a child that cannot hear it cannot be stopped); and with none of our descriptors from 3 up (not
/// the state lock, not another thread's pipes).
public enum ChildProcessSetup {
    #if canImport(Glibc)
        public typealias FileActions = posix_spawn_file_actions_t
        public typealias Attributes = posix_spawnattr_t
    #else
        public typealias FileActions = posix_spawn_file_actions_t?
        public typealias Attributes = posix_spawnattr_t?
    #endif

    /// Runs `body` with file actions and attributes set up as above; `body` adds the child's standard
    /// descriptors to the actions and spawns. `defaults` are the signals given their default disposition.
    public static func withSpawnSettings<Result>(
        defaults: [Int32], _ body: (inout FileActions, inout Attributes) throws -> Result
    ) rethrows -> Result {
        #if canImport(Glibc)
            var actions = posix_spawn_file_actions_t()
            var attributes = posix_spawnattr_t()
        #else
            var actions: posix_spawn_file_actions_t?
            var attributes: posix_spawnattr_t?
        #endif
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawnattr_setpgroup(&attributes, 0)
        var defaultSet = sigset_t()
        sigemptyset(&defaultSet)
        for signal in defaults { sigaddset(&defaultSet, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaultSet)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        return try body(&actions, &attributes)
    }

    /// Adds "close every descriptor from 3 up" to `actions`: call it after the child's own descriptors
    /// were set up (they are closed too when they are 3 or above, after being duplicated to 0-2).
    public static func closeOthers(_ actions: inout FileActions, _ attributes: inout Attributes) {
        _ = aggctl_spawn_close_others(&actions, &attributes, 3)
    }

    /// Every signal that can be given its default disposition.
    public static var allSignals: [Int32] {
        (1..<32).map(Int32.init).filter { $0 != SIGKILL && $0 != SIGSTOP }
    }
}
