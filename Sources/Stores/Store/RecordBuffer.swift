import Snapshots

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Memory one reader reuses for record after record, so that reading a store does not allocate (and
/// fault in fresh pages) per record. Not shared between threads; freed with `deallocate()`.
public struct RecordBuffer {
    public private(set) var bytes: UnsafeMutableRawBufferPointer
    /// The record whose bytes the buffer holds, as the store examined it while reading it (a folder's
    /// `fstat` of the open file: the version of exactly these bytes); nil when the store learns nothing
    /// in reading. What lets a listing leave records unexamined (`RecordStore.listRecordNames`).
    public var examined: RecordInfo?
    /// A line about the record worth a problem though it reads (a sealed store's plaintext record), set by
    /// the store that read it.
    public var note: String?

    public init(capacity: Int = 64 * 1024) {
        bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(capacity, 16), alignment: 16)
    }

    /// Makes room for at least `count` bytes; the content is not kept.
    public mutating func reserve(_ count: Int) {
        guard count > bytes.count else { return }
        bytes.deallocate()
        bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, bytes.count * 2), alignment: 16)
    }

    /// Grows to at least `count` bytes keeping the first `kept` bytes.
    public mutating func grow(to count: Int, keeping kept: Int) {
        guard count > bytes.count else { return }
        let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
        larger.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[0..<kept]))
        bytes.deallocate()
        bytes = larger
    }

    public func deallocate() {
        bytes.deallocate()
    }
}
