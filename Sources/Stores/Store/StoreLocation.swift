import HTTP
import Portable
import Snapshots
import TextSafety

/// Where `--store` points, parsed by the backend its scheme names (`StoreRegistry`).
///
/// A URL is parsed, never concatenated onto: what a store writes, moves or deletes is its collection's
/// path or prefix plus one encoded name, so a URL must name a collection and nothing else. A query (`?`)
/// or a fragment (`#`) would turn "the collection" into a file on most servers (`/notes.txt?` is
/// `/notes.txt`), and `.`/`..` segments would be resolved by the HTTP library into another collection than
/// the one listed: each is refused before any request.
public struct StoreLocation: Sendable, Equatable {
    /// The backend that parsed it and opens it (`StoreBackend.name`).
    public var backend: String
    /// What the backend opens: a folder's path, or the URL as given (a WebDAV URL may carry its user
    /// name and password). Never shown: `displayName` is.
    public var address: String
    /// The location for messages, without credentials.
    public var displayName: String

    public init(backend: String, address: String, displayName: String) {
        self.backend = backend
        self.address = address
        self.displayName = displayName
    }

    /// A folder on a local or mounted file system.
    public static func directory(path: String) -> StoreLocation {
        StoreLocation(backend: DirectoryBackend.name, address: path, displayName: path)
    }

    /// The address as a URL, for backends whose addresses are URLs.
    public var url: URL? { URL(string: address) }

    /// Why a `--store` value is not a store, in words that fit after the value.
    public struct ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }

        public init(reason: String) {
            self.reason = reason
        }
    }

    /// Parses a `--store` value with the standard backends (`StoreRegistry.standard`).
    public static func parse(_ text: String) throws(ParseError) -> StoreLocation {
        try StoreRegistry.standard.parse(text)
    }

    /// `text` as a URL without query, fragment, dot segments, encoded `/` or control characters: the
    /// checks every URL-based backend makes.
    public static func checkedURL(_ text: String) throws(ParseError) -> URL {
        if text.contains("?") { throw ParseError(reason: "has a query ('?'); a store URL names a collection only") }
        if text.contains("#") {
            throw ParseError(reason: "has a fragment ('#'); a store URL names a collection only")
        }
        guard let components = URLComponents(string: text), let url = components.url else {
            throw ParseError(reason: "is not a valid URL")
        }
        let segments = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false)
        for segment in segments {
            let decoded = PercentEncoding.decode(segment) ?? String(segment)
            if decoded == "." || decoded == ".." {
                throw ParseError(reason: "has a '\(decoded)' segment; name the collection itself")
            }
            if decoded.contains("/") || SafeText.hasControlCharacters(decoded) {
                throw ParseError(reason: "has an encoded '/' or control character in its path")
            }
        }
        return url
    }

    /// `url` without user name and password (the one way aggctl strips them, `HTTPRequest.displayURL`).
    public static func redacting(_ url: URL) -> String {
        HTTPRequest.displayURL(url.absoluteString)
    }
}
