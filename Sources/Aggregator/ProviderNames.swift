/// How providers are named to people, in tables and notifications.
public enum ProviderNames {
    /// The display name: Claude, Codex, Cursor, Gemini, Copilot, ...; an unknown id capitalised.
    public static func displayName(of providerID: String) -> String {
        known[providerID] ?? (providerID.prefix(1).uppercased() + providerID.dropFirst())
    }

    /// Built once: as a literal inside `displayName` it was built again for every account of every status
    /// line, a tenth of a warm `status --format line`.
    public static let known = [
        "claude": "Claude", "codex": "Codex", "cursor": "Cursor", "gemini": "Gemini", "copilot": "Copilot",
        "windsurf": "Windsurf", "amp": "Amp", "factory": "Factory", "zai": "z.ai", "kimi": "Kimi",
    ]
}
