import HTTP
import Portable
import TextSafety

/// Posts each event to a Slack incoming webhook (`--notify slack:https://hooks.slack.com/services/...`).
///
/// Slack's incoming-webhook format (api.slack.com/messaging/webhooks): a POST of
/// `{"text": "..."}` as `application/json`, answered `200 ok`. The text is the title in bold and the
/// body, in mrkdwn with `&`, `<` and `>` escaped (`SafeText.slackText`), so a record cannot make a link or
/// a `<!channel>` mention. The webhook's URL is its secret: messages show the host only.
public struct SlackNotifier: Notifier {
    public let name: String
    public var isPersonFacing: Bool { true }
    public var isShared: Bool { true }
    private let url: String
    private let client: HTTPClient

    public init(url: String, client: HTTPClient) {
        self.url = url
        self.client = client
        name = WebhookNotifier.outboxName("slack", url: url)
    }

    /// The message body for `notification`.
    static func payload(for notification: Notification) -> String {
        let text = "*" + SafeText.slackText(notification.title) + "*\n" + SafeText.slackText(notification.body)
        return "{\"text\":\(Notification.quoted(text))}"
    }

    public func deliver(_ notification: Notification) throws {
        try WebhookNotifier.postJSON(Self.payload(for: notification), to: url, with: client, service: "slack")
    }
}

/// `--notify slack:URL`.
public struct SlackKind: NotifierKind {
    public init() {}
    public let name = "slack"
    public let form = "slack:URL"
    public let summary = "posts to a Slack incoming webhook ({\"text\"}, mrkdwn escaped)"

    public func make(argument: String?, context: NotifierContext) throws -> any Notifier {
        let url = try WebhookKind.httpURL(argument ?? "", form: form)
        return SlackNotifier(url: url, client: try context.httpClient(nil))
    }
}
