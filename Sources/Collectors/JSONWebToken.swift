import Portable

/// The claims of a JSON Web Token, read without verifying it: only to learn which account a local login
/// belongs to. The token itself is never printed or stored.
enum JSONWebToken {
    /// The payload (second part) as JSON, or nil when the token is not a JWT.
    static func claims(of token: String) -> JSONValue? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 2 else { return nil }
        var base64 = String(parts[1].replacing("-", with: "+").replacing("_", with: "/"))
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64) else { return nil }
        return data.withUnsafeBytes { JSONValue.parse($0) }
    }
}
