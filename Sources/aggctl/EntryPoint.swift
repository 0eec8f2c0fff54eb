import AggctlCLI
import Portable

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The thin entry point: everything it calls is in `AggctlCLI`, tested in-process.
@main
struct EntryPoint {
    static func main() {
        // Started with stdin, stdout or stderr closed (`aggctl check >&-`), the next file opened would take
        // that number, and output meant for stdout would land in the state file. /dev/null holds each
        // closed one; a closed stdout still counts as output that cannot be written.
        let closed = (0...2).map { fcntl($0, F_GETFD) == -1 && errno == EBADF }
        for descriptor in 0...2 where closed[descriptor] {
            _ = open("/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY)
        }
        // A closed stdout pipe (`aggctl status | head -1`) must end quietly, not kill us with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        // A file past the size limit (`ulimit -f`) must fail its write with EFBIG and a message, not end
        // the run silently with SIGXFSZ half way through a state write. Hooks get the default back.
        signal(SIGXFSZ, SIG_IGN)
        // Signals blocked by whoever started us (a thread pool, a test runner) are inherited across exec;
        // `watch` must hear SIGTERM, and hooks must be stoppable.
        var none = sigset_t()
        sigemptyset(&none)
        sigprocmask(SIG_SETMASK, &none, nil)
        let environment = ProcessEnvironment.current()
        var status = Aggctl.runProcess(
            Array(CommandLine.arguments.dropFirst()), environment: environment, closedOutput: closed[1],
            closedErrors: closed[2])
        // Closing is the last write: a file system that reports a failed write only then (NFS, a full
        // quota) must not end in success. A pipe or terminal never fails here.
        let arguments = Array(CommandLine.arguments.dropFirst())
        if close(1) != 0, errno != EBADF, errno != EINTR, status == .success, !Aggctl.promisesSuccess(arguments) {
            let message = "aggctl: error: cannot write to standard output: \(String(cString: strerror(errno)))\n"
            _ = message.withCString { write(2, $0, strlen($0)) }
            status = .failure
        }
        exit(status.rawValue)
    }
}
