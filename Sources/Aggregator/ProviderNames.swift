/// How providers are named to people, in tables and notifications.
public enum ProviderNames {
    /// The display name: Claude, Codex, Cursor, Gemini, Copilot, ...; an unknown id capitalised.
    public static func displayName(of providerID: String) -> String {
        let known = [
            "claude": "Claude", "codex": "Codex", "cursor": "Cursor", "gemini": "Gemini", "copilot": "Copilot",
            "windsurf": "Windsurf", "amp": "Amp", "factory": "Factory", "zai": "z.ai", "kimi": "Kimi",
        ]
        return known[providerID] ?? (providerID.prefix(1).uppercased() + providerID.dropFirst())
    }
}
