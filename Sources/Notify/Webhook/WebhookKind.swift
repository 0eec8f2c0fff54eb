import HTTP
import Portable
import TextSafety

/// `--notify webhook:URL`: an HTTP POST of the event's JSON.
public struct WebhookKind: NotifierKind {
    public init() {}
    public let name = "webhook"
    public let form = "webhook:URL"
    public let summary =
        "POSTs the event as JSON (Idempotency-Key: the event id); any 2xx answer is success, redirects are not "
        + "followed. The URL's user:password@ goes as Basic authentication; else AGGCTL_WEBHOOK_TOKEN (or the "
        + "file AGGCTL_WEBHOOK_TOKEN_FILE) as a bearer token"
    public var variables: [(name: String, meaning: String)] {
        [("AGGCTL_WEBHOOK_TOKEN, AGGCTL_WEBHOOK_TOKEN_FILE", "a bearer token for webhook notifications")]
    }
    public var secretVariables: [String] { ["AGGCTL_WEBHOOK_TOKEN", "AGGCTL_WEBHOOK_TOKEN_FILE"] }

    /// The URL's userinfo as Basic authentication, else `AGGCTL_WEBHOOK_TOKEN` (or the first line of the
    /// file `AGGCTL_WEBHOOK_TOKEN_FILE`) as a bearer token. Messages show the URL's scheme and host only.
    public func make(argument: String?, context: NotifierContext) throws -> any Notifier {
        let url = try Self.httpURL(argument ?? "", form: form)
        let credentials = WebhookNotifier.credentials(in: url)
        var token: String?
        if credentials == nil {
            token = try Self.token(
                in: context.environment, variable: "AGGCTL_WEBHOOK_TOKEN", file: "AGGCTL_WEBHOOK_TOKEN_FILE")
        }
        if let credentials, !SafeText.isHeaderSafe(credentials.user) || !SafeText.isHeaderSafe(credentials.password) {
            throw NotifierSpecError("--notify: the user name or password in the webhook URL holds a line break or NUL")
        }
        return WebhookNotifier(url: url, client: try context.httpClient(credentials), bearerToken: token)
    }

    /// `text` when it is an http(s) URL with a host; else a usage error showing its origin only.
    static func httpURL(_ text: String, form: String) throws -> String {
        let lower = text.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), let components = URLComponents(string: text),
            components.host?.isEmpty == false
        else {
            throw NotifierSpecError(
                "--notify: '\(HTTPRequest.origin(of: text))/...' is not an http(s) URL; expected "
                    + form.replacing("URL", with: "https://host/path"))
        }
        return text
    }

    /// A token from the variable `variable`, else the first line of the file the variable `file` names;
    /// nil when neither is set. Refused when it is empty or could break a header.
    static func token(in environment: [String: String], variable: String, file: String?) throws -> String? {
        var token: String?
        if let value = environment[variable], !value.isEmpty {
            token = value
        } else if let file, let path = environment[file], !path.isEmpty {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw NotifierSpecError("cannot read the token file '\(path)' (\(file))", isUsage: false)
            }
            token = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first.map {
                $0.trimmingBlanks()
            }
        }
        if let token, token.isEmpty || !SafeText.isHeaderSafe(token) {
            throw NotifierSpecError("\(variable): the token is empty or holds a line break or NUL")
        }
        return token
    }
}
