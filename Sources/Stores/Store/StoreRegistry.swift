import Portable
import Snapshots
import TextSafety

/// The kinds of store aggctl knows, found by a `--store` value's scheme.
public struct StoreRegistry: Sendable {
    public let backends: [any StoreBackend]

    public init(_ backends: [any StoreBackend]) {
        self.backends = backends
    }

    /// Every store aggctl ships: one line per backend.
    public static let standard = StoreRegistry([
        DirectoryBackend(),
        WebDAVBackend(),
        S3Backend(),
    ])

    /// The backend that parsed `location`.
    public func backend(of location: StoreLocation) -> (any StoreBackend)? {
        backends.first { $0.name == location.backend }
    }

    /// Every secret a backend declares, by name and by prefix.
    public var secretVariables: Set<String> { Set(backends.flatMap(\.secretVariables)) }
    public var secretPrefixes: [String] { backends.flatMap(\.secretPrefixes) }

    /// Every scheme, for messages and help ("file, http, https, s3").
    public var schemes: [String] { backends.flatMap(\.schemes) }

    /// Parses a `--store` value: a path goes to the backend that takes paths, a `scheme://` value to the
    /// backend of that scheme.
    ///
    /// - Throws: `ParseError` for an empty value, control characters, an unknown scheme, or whatever the
    ///   backend refuses.
    public func parse(_ text: String) throws(StoreLocation.ParseError) -> StoreLocation {
        let trimmed = text.trimmingBlanks()
        guard !trimmed.isEmpty else { throw StoreLocation.ParseError(reason: "is empty") }
        guard !SafeText.hasControlCharacters(trimmed) else {
            throw StoreLocation.ParseError(reason: "holds control characters")
        }
        if let scheme = Self.scheme(of: trimmed) {
            guard let backend = backends.first(where: { $0.schemes.contains(scheme) }) else {
                throw StoreLocation.ParseError(
                    reason: "has the unsupported scheme '\(scheme)' (known: \(schemes.joined(separator: ", ")))")
            }
            return try backend.parse(trimmed)
        }
        guard let backend = backends.first(where: \.takesPaths) else {
            throw StoreLocation.ParseError(reason: "is not a URL (known schemes: \(schemes.joined(separator: ", ")))")
        }
        return try backend.parse(trimmed)
    }

    /// The lower-cased scheme of a `scheme://...` value; nil for a path (which may hold a colon).
    static func scheme(of text: String) -> String? {
        guard let colon = text.firstIndex(of: ":"), text[text.index(after: colon)...].hasPrefix("//") else {
            return nil
        }
        let scheme = text[..<colon]
        guard scheme.count > 1, let first = scheme.first, first.isASCII, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return scheme.lowercased()
    }
}
