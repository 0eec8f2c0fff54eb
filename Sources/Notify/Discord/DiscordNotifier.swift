import HTTP
import Portable
import TextSafety

/// Posts each event to a Discord webhook (`--notify discord:https://discord.com/api/webhooks/ID/TOKEN`).
///
/// Discord's execute-webhook format (discord.com/developers/docs/resources/webhook): a POST of
/// `{"content": "...", "allowed_mentions": {"parse": []}}` as `application/json`, answered `204`. The
/// content is the title in bold and the body, Discord's markdown characters escaped
/// (`SafeText.discordText`), at most 2000 characters; `allowed_mentions` with nothing to parse means no
/// `@everyone` or user mention in a record's text pings anyone. The URL holds the webhook's token:
/// messages show the host only.
public struct DiscordNotifier: Notifier {
    public let name: String
    public var isPersonFacing: Bool { true }
    public var isShared: Bool { true }
    private let url: String
    private let client: HTTPClient

    /// Discord refuses content longer than this.
    static let contentLimit = 2000

    public init(url: String, client: HTTPClient) {
        self.url = url
        self.client = client
        name = WebhookNotifier.outboxName("discord", url: url)
    }

    /// The message body for `notification`.
    static func payload(for notification: Notification) -> String {
        // The body holds the facts (the percent, the account, the reset): a long title is cut first, and
        // the body only past what is left.
        let body = cut(SafeText.discordText(notification.body), to: contentLimit - 16)
        let title = cut(SafeText.discordText(notification.title), to: contentLimit - body.count - 5)
        let content = "**" + title + "**\n" + body
        return "{\"allowed_mentions\":{\"parse\":[]},\"content\":\(Notification.quoted(content))}"
    }

    /// `text` in at most `limit` characters, ended with "..." when cut.
    static func cut(_ text: String, to limit: Int) -> String {
        guard text.count > limit else { return text }
        var kept = String(text.prefix(max(0, limit - 3)))
        // A cut must not leave an escape without the character it escapes.
        if kept.hasSuffix("\\") { kept.removeLast() }
        return kept + "..."
    }

    public func deliver(_ notification: Notification) throws {
        try WebhookNotifier.postJSON(Self.payload(for: notification), to: url, with: client, service: "discord")
    }
}

/// `--notify discord:URL`.
public struct DiscordKind: NotifierKind {
    public init() {}
    public let name = "discord"
    public let form = "discord:URL"
    public let summary = "posts to a Discord webhook ({\"content\"}, markdown escaped, no mentions)"

    public func make(argument: String?, context: NotifierContext) throws -> any Notifier {
        let url = try WebhookKind.httpURL(argument ?? "", form: form)
        return DiscordNotifier(url: url, client: try context.httpClient(nil))
    }
}
