import HTTP
import Portable
import TextSafety

/// Publishes each event to an ntfy topic (`--notify ntfy:https://ntfy.sh/my-topic`, or a self-hosted
/// server): how a phone gets the alert, through ntfy's app.
///
/// ntfy's publish protocol (docs.ntfy.sh/publish): a POST to the topic's URL whose body is the message,
/// with the title in `Title`, the priority in `Priority` (5 for depleted, 4 for a warning or pace, 3 for
/// restored) and `Tags` (an emoji name ntfy shows, then `aggctl`, the kind and the provider). Headers are
/// made safe by `SafeText.headerText` (one line; non-ASCII as RFC 2047 words, which ntfy decodes). An
/// access token (`AGGCTL_NTFY_TOKEN`) goes as `Authorization: Bearer`; the URL's userinfo as Basic
/// authentication. The topic is a secret like a webhook's path: messages show the server only.
public struct NtfyNotifier: Notifier {
    public let name: String
    public var isPersonFacing: Bool { true }
    public var isShared: Bool { true }
    private let url: String
    private let client: HTTPClient
    private let token: String?

    public init(url: String, client: HTTPClient, token: String?) {
        self.url = url
        self.client = client
        self.token = token
        name = WebhookNotifier.outboxName("ntfy", url: url)
    }

    /// The headers ntfy reads, for `notification`.
    static func headers(for notification: Notification) -> [(String, String)] {
        let (priority, emoji) =
            switch notification.kind {
            case "depleted": ("5", "rotating_light")
            case "restored": ("3", "white_check_mark")
            case "budget": ("4", "money_with_wings")
            default: ("4", "warning")
            }
        // A provider id is [a-z0-9-] in a valid record; anything else is left out of the tag.
        let provider = String(
            String.UnicodeScalarView(
                notification.providerID.unicodeScalars.filter {
                    ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-"
                }))
        let tags = [emoji, "aggctl", notification.kind, provider].filter { !$0.isEmpty }
        return [
            ("Title", SafeText.headerText(notification.title)), ("Priority", priority),
            ("Tags", tags.joined(separator: ",")), ("Content-Type", "text/plain; charset=utf-8"),
        ]
    }

    public func deliver(_ notification: Notification) throws {
        var headers = Self.headers(for: notification)
        if let token { headers.append(("Authorization", "Bearer " + token)) }
        let request = HTTPRequest(
            method: "POST", url: url, headers: headers, body: Data(notification.body.utf8), followsRedirects: false,
            shownAs: HTTPRequest.origin(of: url))
        try WebhookNotifier.post(request, with: client, service: "ntfy")
    }
}

/// `--notify ntfy:URL`.
public struct NtfyKind: NotifierKind {
    public init() {}
    public let name = "ntfy"
    public let form = "ntfy:URL"
    public let summary =
        "publishes to an ntfy topic (https://ntfy.sh/TOPIC or a server of your own): the body as the message, "
        + "Title, Priority (5 depleted, 4 warning, 3 restored) and Tags; AGGCTL_NTFY_TOKEN as the access token"
    public var variables: [(name: String, meaning: String)] {
        [("AGGCTL_NTFY_TOKEN, AGGCTL_NTFY_TOKEN_FILE", "an access token for ntfy notifications")]
    }
    public var secretVariables: [String] { ["AGGCTL_NTFY_TOKEN", "AGGCTL_NTFY_TOKEN_FILE"] }

    public func make(argument: String?, context: NotifierContext) throws -> any Notifier {
        let url = try WebhookKind.httpURL(argument ?? "", form: form)
        let credentials = WebhookNotifier.credentials(in: url)
        let token =
            credentials == nil
            ? try WebhookKind.token(
                in: context.environment, variable: "AGGCTL_NTFY_TOKEN", file: "AGGCTL_NTFY_TOKEN_FILE")
            : nil
        return NtfyNotifier(url: url, client: try context.httpClient(credentials), token: token)
    }
}
