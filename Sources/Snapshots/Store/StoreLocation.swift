import Foundation
import HTTP
import TextSafety

/// Where `--store` points, parsed from a path or URL.
///
/// A URL is parsed, never concatenated onto: what a store writes, moves or deletes is its collection's
/// path plus one encoded name, so a URL must name a collection and nothing else. A query (`?`) or a
/// fragment (`#`) would turn "the collection" into a file on most servers (`/notes.txt?` is `/notes.txt`),
/// and `.`/`..` segments would be resolved by the HTTP library into another collection than the one
/// listed: each is refused before any request.
public enum StoreLocation: Sendable, Equatable {
    /// A folder on a local or mounted file system.
    case directory(path: String)
    /// A WebDAV collection (`http://` or `https://`): no query, no fragment, no dot segments.
    case webDAV(url: URL)

    /// Why a `--store` value is not a store, in words that fit after the value.
    public struct ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    /// Parses a `--store` value: a path, a `file://` URL of this machine, or an `http(s)://` URL.
    ///
    /// - Throws: `ParseError` for another scheme, a malformed URL, a query or fragment, dot segments,
    ///   control characters, or a `file://` URL naming another host.
    public static func parse(_ text: String) throws(ParseError) -> StoreLocation {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw ParseError(reason: "is empty") }
        guard !SafeText.hasControlCharacters(trimmed) else {
            throw ParseError(reason: "holds control characters")
        }
        let lower = trimmed.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            let url = try checkedURL(trimmed)
            guard let host = url.host, !host.isEmpty else { throw ParseError(reason: "has no host") }
            return .webDAV(url: url)
        }
        if lower.hasPrefix("file://") {
            let url = try checkedURL(trimmed)
            let host = (url.host ?? "").lowercased()
            guard host.isEmpty || host == "localhost" else {
                throw ParseError(reason: "names another machine ('\(host)'); a file:// store must be on this one")
            }
            guard !url.path.isEmpty else { throw ParseError(reason: "has no path") }
            return .directory(path: url.path)
        }
        if let colon = trimmed.firstIndex(of: ":"), !trimmed[..<colon].contains("/"), trimmed[..<colon].count > 1,
            trimmed[trimmed.index(after: colon)...].hasPrefix("//")
        {
            throw ParseError(reason: "has the unsupported scheme '\(trimmed[..<colon].lowercased())'")
        }
        return .directory(path: trimmed)
    }

    /// `text` as a URL without query, fragment or dot segments.
    private static func checkedURL(_ text: String) throws(ParseError) -> URL {
        if text.contains("?") { throw ParseError(reason: "has a query ('?'); a store URL names a collection only") }
        if text.contains("#") {
            throw ParseError(reason: "has a fragment ('#'); a store URL names a collection only")
        }
        guard let components = URLComponents(string: text), let url = components.url else {
            throw ParseError(reason: "is not a valid URL")
        }
        let segments = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false)
        for segment in segments {
            let decoded = segment.removingPercentEncoding ?? String(segment)
            if decoded == "." || decoded == ".." {
                throw ParseError(reason: "has a '\(decoded)' segment; name the collection itself")
            }
            if decoded.contains("/") || SafeText.hasControlCharacters(decoded) {
                throw ParseError(reason: "has an encoded '/' or control character in its path")
            }
        }
        return url
    }

    /// The location for messages: URLs lose their user info, so a password can never be shown.
    public var displayName: String {
        switch self {
        case .directory(let path):
            return path
        case .webDAV(let url):
            return StoreLocation.redacting(url)
        }
    }

    /// `url` without user name and password (the one way aggctl strips them, `HTTPRequest.displayURL`).
    public static func redacting(_ url: URL) -> String {
        HTTPRequest.displayURL(url.absoluteString)
    }
}
