import Foundation
import HTTP
import Snapshots

/// What the two usage endpoints share: a bearer token, one GET, a JSON answer turned into an entry, and
/// every failure turned into the entry's `error` ("signed out", "could not read usage"), never a thrown
/// error: one provider being away must not stop a publish.
///
/// Tokens go only into the `Authorization` header: error texts name the URL and the status, never them.
struct UsageEndpoint {
    var providerID: String
    var url: String
    var headers: [(name: String, value: String)]
    var client: HTTPClient

    /// An entry carrying only why there are no figures.
    static func failure(_ providerID: String, _ reason: String, now: Date, email: String? = nil, plan: String? = nil)
        -> ProviderUsage
    {
        ProviderUsage(providerID: providerID, accountEmail: email, plan: plan, lastUpdated: now, error: reason)
    }

    /// GETs the usage and hands the parsed JSON to `entry`; failures become an entry with `error`.
    func fetch(
        now: Date, email: String?, plan: String?, entry: (JSONValue) -> ProviderUsage?
    ) -> ProviderUsage {
        let response: HTTPResponse
        do {
            response = try client.send(HTTPRequest(url: url, headers: headers + [("Accept", "application/json")]))
        } catch let error as HTTPError {
            return Self.failure(
                providerID, "could not read usage (\(error.message))", now: now, email: email, plan: plan)
        } catch {
            return Self.failure(providerID, "could not read usage (\(error))", now: now, email: email, plan: plan)
        }
        switch response.status {
        case 200:
            let json = response.body.withUnsafeBytes { JSONValue.parse($0) }
            if let json, let usage = entry(json) { return usage }
            return Self.failure(
                providerID, "could not read usage (the answer from \(url) is not the expected JSON)", now: now,
                email: email, plan: plan)
        case 401, 403:
            return Self.failure(
                providerID, "signed out (the usage endpoint refused the token: HTTP \(response.status))", now: now,
                email: email, plan: plan)
        default:
            return Self.failure(
                providerID, "could not read usage (HTTP \(response.status) from \(url))", now: now, email: email,
                plan: plan)
        }
    }
}

extension JSONValue {
    /// A percentage field that may be missing or null.
    func percent(_ key: String) -> Double? { self[key]?.number }
}
