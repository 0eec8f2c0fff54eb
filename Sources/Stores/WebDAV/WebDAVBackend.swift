import HTTP
import Portable
import Snapshots

/// WebDAV collections: `http://` and `https://` URLs, credentials from the URL, the environment or
/// `~/.netrc` (`WebDAVCredentials`).
public struct WebDAVBackend: StoreBackend {
    public static let name = "webdav"
    public var name: String { Self.name }
    public var schemes: [String] { ["http", "https"] }
    public var variables: [(names: String, meaning: String)] {
        [
            (
                "AGGCTL_WEBDAV_USER, AGGCTL_WEBDAV_PASSWORD",
                "WebDAV credentials (also the URL's userinfo or ~/.netrc); never shown"
            )
        ]
    }
    public var secretPrefixes: [String] { ["AGGCTL_WEBDAV_"] }

    public init() {}

    /// - Throws: `ParseError` for a query, fragment, dot segments or a missing host.
    public func parse(_ text: String) throws(StoreLocation.ParseError) -> StoreLocation {
        let url = try StoreLocation.checkedURL(text)
        guard let host = url.host, !host.isEmpty else { throw StoreLocation.ParseError(reason: "has no host") }
        return StoreLocation(backend: name, target: .webDAV(url), displayName: StoreLocation.redacting(url))
    }

    public func open(_ location: StoreLocation, context: StoreContext) throws -> any RecordStore {
        let url = try Self.url(of: location)
        var configuration = try context.http()
        configuration.credentials = WebDAVCredentials.resolve(
            for: url, environment: context.environment, netrcPath: context.home + "/.netrc")
        let store = WebDAVStore(url: url, client: HTTPClient(configuration))
        // A record mid-replace is missing from a listing for a moment: looked for again (`RelistingStore`).
        guard let cacheFolder = context.cacheFolder else { return store }
        return RelistingStore(base: store, namesPath: ListedNames.path(in: cacheFolder, store: location.displayName))
    }

    public func diagnosis(of location: StoreLocation, context: StoreContext) -> any StoreDiagnosis {
        WebDAVDiagnosis(location: location, context: context)
    }

    static func url(of location: StoreLocation) throws -> URL {
        guard case .webDAV(let url) = location.target else {
            throw StoreError.failed(operation: "open", target: location.displayName, reason: "not a URL")
        }
        return url
    }
}
