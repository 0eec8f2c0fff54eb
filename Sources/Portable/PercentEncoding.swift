/// Percent-encoding of URL parts (RFC 3986), over UTF-8 bytes: what FoundationEssentials keeps private.
public struct PercentEncoding: Sendable {
    private let kept: [Bool]

    /// Keeps the ASCII characters of `characters` as they are; every other byte becomes `%XX` (upper-case hex).
    public init(keeping characters: String) {
        var kept = [Bool](repeating: false, count: 256)
        for byte in characters.utf8 where byte < 128 { kept[Int(byte)] = true }
        self.kept = kept
    }

    /// RFC 3986's unreserved characters: letters, digits, `-`, `.`, `_`, `~`.
    public static let unreserved = PercentEncoding(
        keeping: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    public func encode(_ text: some StringProtocol) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if kept[Int(byte)] {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `text` with every `%XX` decoded; nil when a `%` is not followed by two hex digits or the bytes are
    /// not UTF-8 (as Foundation's `removingPercentEncoding`).
    public static func decode(_ text: some StringProtocol) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var bytes = text.utf8.makeIterator()
        while let byte = bytes.next() {
            guard byte == UInt8(ascii: "%") else {
                out.append(byte)
                continue
            }
            guard let high = bytes.next().flatMap(hexValue), let low = bytes.next().flatMap(hexValue) else {
                return nil
            }
            out.append(high << 4 | low)
        }
        let decoded = String(decoding: out, as: UTF8.self)
        return decoded.utf8.elementsEqual(out) ? decoded : nil
    }

    /// `bytes` with every `%XX` decoded and every other byte kept as it is, a `%` without two hex digits
    /// after it too: how servers' hrefs are read (a listing is not refused over one sloppy escape).
    public static func decodeLeniently<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes) -> [UInt8] {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), bytes.distance(from: index, to: bytes.endIndex) > 2,
                let high = hexValue(bytes[bytes.index(after: index)]),
                let low = hexValue(bytes[bytes.index(index, offsetBy: 2)])
            {
                decoded.append(high << 4 | low)
                index = bytes.index(index, offsetBy: 3)
            } else {
                decoded.append(byte)
                index = bytes.index(after: index)
            }
        }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
