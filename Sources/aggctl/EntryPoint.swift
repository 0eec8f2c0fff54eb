import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The thin entry point: everything it calls is tested in-process.
@main
struct EntryPoint {
    static func main() {
        // A closed stdout pipe (`aggctl status | head -1`) must end quietly, not kill us with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        // Signals blocked by whoever started us (a thread pool, a test runner) are inherited across exec;
        // `watch` must hear SIGTERM, and hooks must be stoppable.
        var none = sigset_t()
        sigemptyset(&none)
        sigprocmask(SIG_SETMASK, &none, nil)
        let environment = ProcessInfo.processInfo.environment
        let status = Aggctl.run(Array(CommandLine.arguments.dropFirst()), context: .standard(environment: environment))
        exit(status.rawValue)
    }
}
