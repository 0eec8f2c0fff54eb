import Foundation

/// A thread-safe list of strings: what a test's fake seam saw, in order.
public final class TestLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []

    public init() {}

    public func append(_ item: String) {
        lock.lock()
        items.append(item)
        lock.unlock()
    }

    public var entries: [String] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }
}
