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
        let environment = ProcessInfo.processInfo.environment
        let status = Aggctl.run(Array(CommandLine.arguments.dropFirst()), context: .standard(environment: environment))
        exit(status.rawValue)
    }
}
