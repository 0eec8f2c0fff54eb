import Foundation

/// A message for a person about their quota, as every notification backend receives it.
///
/// Deliberately free of store and record types: a backend only needs the words and an identity.
public struct Notification: Sendable, Equatable, Codable {
    /// Stable across retries: a backend that sees the same id twice is seeing one event delivered again.
    public var id: String
    public var title: String
    public var body: String

    public init(id: String, title: String, body: String) {
        self.id = id
        self.title = title
        self.body = body
    }
}
