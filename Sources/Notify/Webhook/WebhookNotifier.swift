import Foundation
import HTTP

/// POSTs each event as JSON to a URL (`--notify webhook:https://...`): the line `stdout` prints, with
/// `Content-Type: application/json` and the event's id in `Idempotency-Key`, so a receiver can drop a
/// repeat after a retried delivery. Success is any 2xx answer.
///
/// The client makes one attempt per delivery: the outbox's `RetryPolicy` retries, like every backend.
/// The backend's name, kept in the outbox, is the URL without userinfo.
public struct WebhookNotifier: Notifier {
    public let name: String
    private let url: String
    private let client: HTTPClient

    /// - Parameter client: an `HTTPClient` configured without retries (`RetryPolicy.never`).
    public init(url: String, client: HTTPClient) {
        self.url = url
        self.client = client
        name = "webhook:" + HTTPRequest.displayURL(url)
    }

    public func deliver(_ notification: Notification) throws {
        let request = HTTPRequest(
            method: "POST", url: url,
            headers: [("Content-Type", "application/json"), ("Idempotency-Key", notification.id)],
            body: Data(notification.jsonLine.utf8))
        let response: HTTPResponse
        do {
            response = try client.send(request)
        } catch let error as HTTPError {
            throw NotifierError("webhook \(error.message)")
        }
        guard response.isSuccess else {
            throw NotifierError("webhook \(request.summary): the server answered HTTP \(response.status)")
        }
    }
}
