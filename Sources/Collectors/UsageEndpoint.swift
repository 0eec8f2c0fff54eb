import HTTP
import Portable
import Snapshots
import TextSafety

/// What the two usage endpoints share: a bearer token, one GET, a JSON answer turned into an entry, and
/// every failure turned into the entry's `error` ("signed out", "could not read usage"), never a thrown
/// error: one provider being away must not stop a publish.
///
/// Tokens go only into the `Authorization` header: error texts name the URL and the status, never them.
struct UsageEndpoint {
    /// What is known without asking (provider, account, plan, time): every answer, figures or failure,
    /// starts from it.
    var known: ProviderUsage
    var url: String
    var headers: [(name: String, value: String)]
    /// Where the token came from (`CLAUDE_CODE_OAUTH_TOKEN`, a file's path), for the message when it is
    /// malformed.
    var tokenSource: String
    var client: HTTPClient

    /// GETs the usage and hands the parsed JSON to `figures`, which adds the windows to `known` (nil when
    /// the JSON has none); failures become `known` with an `error`.
    ///
    /// A token (or account id) with a line break or NUL would add headers of its own: the entry says it
    /// is malformed, and no request is made.
    func fetch(figures: (JSONValue, ProviderUsage) -> ProviderUsage?) -> ProviderUsage {
        if let bad = headers.first(where: { !SafeText.isHeaderSafe($0.value) }) {
            let what = bad.name == "Authorization" ? "the token" : "the \(bad.name) value"
            return known.failing("signed out (\(what) from \(tokenSource) is malformed: it holds a line break or NUL)")
        }
        let response: HTTPResponse
        do {
            response = try client.send(HTTPRequest(url: url, headers: headers + [("Accept", "application/json")]))
        } catch let error as HTTPError {
            return known.failing("could not read usage (\(error.message))")
        } catch {
            return known.failing("could not read usage (\(error))")
        }
        switch response.status {
        case 200:
            let json = response.body.withUnsafeBytes { JSONValue.parse($0) }
            if let json, let usage = figures(json, known) { return usage }
            return known.failing("could not read usage (the answer from \(url) is not the expected JSON)")
        case 401, 403:
            return known.failing("signed out (the usage endpoint refused the token: HTTP \(response.status))")
        default:
            return known.failing("could not read usage (HTTP \(response.status) from \(url))")
        }
    }
}

extension ProviderUsage {
    /// This entry with `reason` for why its figures are missing.
    func failing(_ reason: String) -> ProviderUsage {
        var entry = self
        entry.error = reason
        return entry
    }
}

extension JSONValue {
    /// The JSON document in the file at `path`; nil when it is missing or not JSON.
    static func read(contentsOf path: String) -> JSONValue? {
        guard let data = FileSystem.contents(of: path) else { return nil }
        return data.withUnsafeBytes { JSONValue.parse($0) }
    }
}
