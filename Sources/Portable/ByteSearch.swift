import CShims

/// Whether bytes hold a fixed text, found with `memmem`: the standard library's `contains` on a
/// `String` walks it character by character (40 % of a Gemini publish with nothing new, for 500 paths).
public enum ByteSearch {
    public static func contains(_ bytes: UnsafeRawBufferPointer, _ text: StaticString) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        return aggctl_memmem(base, bytes.count, text.utf8Start, text.utf8CodeUnitCount) != nil
    }

    public static func contains(_ string: String, _ text: StaticString) -> Bool {
        var string = string
        return string.withUTF8 { contains(UnsafeRawBufferPointer($0), text) }
    }
}
