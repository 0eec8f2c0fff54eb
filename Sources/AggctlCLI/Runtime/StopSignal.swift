import Dispatch
import Portable

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SIGINT and SIGTERM turned into a request to stop, for long-running commands: the work in hand is
/// finished (a delivery, a state write) and the loop ends, instead of the process dying mid-write.
final class StopSignal: @unchecked Sendable {
    private let lock = Lock()
    private var requested = false
    private let wakeUp = DispatchSemaphore(value: 0)
    private var sources: [any DispatchSourceSignal] = []

    init(signals: [Int32] = [SIGINT, SIGTERM]) {
        for number in signals {
            // The default action must be off for a dispatch source to receive the signal.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.request() }
            source.resume()
            sources.append(source)
        }
    }

    /// Stops listening and gives the signals their default action back.
    func cancel() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }

    var isRequested: Bool {
        lock.lock()
        defer { lock.unlock() }
        return requested
    }

    func request() {
        lock.lock()
        requested = true
        lock.unlock()
        wakeUp.signal()
    }

    /// Waits `seconds`, or less when a stop is requested meanwhile.
    func wait(_ seconds: TimeInterval) {
        guard !isRequested else { return }
        _ = wakeUp.wait(timeout: .now() + seconds)
    }
}
