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
    /// What a backend parsed a `--store` value into, once: the backend opens this value, never the text
    /// again.
    public enum Target: Sendable, Equatable {
        /// A folder's path.
        case folder(path: String)
        /// A WebDAV collection's URL, as given (it may carry a user name and password).
        case webDAV(URL)
        /// A bucket and prefix.
        case s3(S3Location)
    }

    /// The backend that parsed it and opens it (`StoreBackend.name`).
    public var backend: String
    public var target: Target
    /// The location for messages, without credentials.
    public var displayName: String

    public init(backend: String, target: Target, displayName: String) {
        self.backend = backend
        self.target = target
        self.displayName = displayName
    }

    /// A folder on a local or mounted file system.
    public static func directory(path: String) -> StoreLocation {
        StoreLocation(backend: DirectoryBackend.name, target: .folder(path: path), displayName: path)
    }

    /// What the backend opens, as text: a folder's path, a URL as given, `s3://BUCKET/PREFIX/`. Never
    /// shown: `displayName` is.
    public var address: String {
        switch target {
        case .folder(let path): path
        case .webDAV(let url): url.absoluteString
        case .s3(let location): location.address
        }
    }

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
