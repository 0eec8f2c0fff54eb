import Foundation
import HTTP

/// Where `--store` points, parsed from a path or URL.
public enum StoreLocation: Sendable, Equatable {
    /// A folder on a local or mounted file system.
    case directory(path: String)
    /// A WebDAV collection (`http://` or `https://`).
    case webDAV(url: URL)

    /// Parses a `--store` value: a path, a `file://` URL, or an `http(s)://` URL.
    ///
    /// - Returns: nil for other URL schemes or a malformed URL.
    public init?(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        let lower = trimmed.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            guard let url = URL(string: trimmed), url.host != nil else { return nil }
            self = .webDAV(url: url)
        } else if lower.hasPrefix("file://") {
            guard let url = URL(string: trimmed), url.isFileURL, !url.path.isEmpty else { return nil }
            self = .directory(path: url.path)
        } else if let colon = trimmed.firstIndex(of: ":"), !trimmed[..<colon].contains("/"),
            trimmed[..<colon].count > 1, trimmed[trimmed.index(after: colon)...].hasPrefix("//")
        {
            return nil  // some other scheme://
        } else {
            self = .directory(path: trimmed)
        }
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
