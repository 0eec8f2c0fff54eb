import Portable

/// The stable identity of one machine, and the name of its record in a store (`<deviceID>.json`).
///
/// 1 to 128 characters of `[A-Za-z0-9._-]`, not starting with `.`: safe as a file name and a URL path
/// segment on every store, and never a path (`..`, `/`) or a hidden in-flight temporary file.
public struct DeviceID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Returns nil when `rawValue` is not a valid device id; `DeviceID.problem(with:)` says why.
    public init?(rawValue: String) {
        guard DeviceID.problem(with: rawValue) == nil else { return nil }
        self.rawValue = rawValue
    }

    /// An id `problem(with:)` has just passed, for a caller that wanted the reason when it failed. Never
    /// for ids read back from kept files: a checksum says only that the bytes are the ones written.
    public init(alreadyValidated rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// The file name of this device's record in a store.
    public var recordName: String { rawValue + ".json" }

    public static func < (lhs: DeviceID, rhs: DeviceID) -> Bool {
        // Byte order, not locale order: the merge's tie-break must be the same on every machine.
        ByteOrder.precedes(lhs.rawValue, rhs.rawValue)
    }

    /// Why `candidate` is not a valid device id, or nil when it is one.
    public static func problem(with candidate: String) -> String? {
        let bytes = candidate.utf8
        if bytes.isEmpty { return "a device id cannot be empty" }
        if bytes.count > 128 { return "a device id has at most 128 characters" }
        if bytes.first == UInt8(ascii: ".") { return "a device id cannot start with '.'" }
        // In place where the text is contiguous (every record's is): iterating the view byte by byte
        // cost more than all the other checks of a record's fields together.
        let allAllowed =
            bytes.withContiguousStorageIfAvailable { $0.allSatisfy(isAllowed) } ?? bytes.allSatisfy(isAllowed)
        return allAllowed ? nil : "a device id has only letters, digits, '.', '_' and '-'"
    }

    /// A valid device id made from arbitrary text (a host name), or nil when nothing usable is left.
    public static func sanitizing(_ text: String, maxLength: Int = 64) -> DeviceID? {
        var out = ""
        for byte in text.utf8 {
            out.append(isAllowed(byte) ? Character(Unicode.Scalar(byte)) : "-")
        }
        while out.hasPrefix(".") { out.removeFirst() }
        return DeviceID(rawValue: String(out.prefix(maxLength)))
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }
}
