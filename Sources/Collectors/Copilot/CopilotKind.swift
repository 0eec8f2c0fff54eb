import HTTP
import Portable

/// `--source copilot-api[:GH_CONFIG_DIR]`: GitHub Copilot's quota endpoint, with the GitHub CLI's token.
public struct CopilotAPIKind: CollectorKind {
    public init() {}
    public let name = "copilot-api"
    public let path = "the GitHub CLI's config folder holding hosts.yml"
    public let summary = "GitHub Copilot's quota endpoint"
    public let isEndpoint = true
    public var variables: [(name: String, meaning: String)] {
        [("GH_TOKEN, GITHUB_TOKEN", "a GitHub token for Copilot's quota endpoint; never shown")]
    }
    public var secretVariables: [String] { ["GH_TOKEN", "GITHUB_TOKEN"] }

    public func presence(environment: [String: String]) -> SourcePresence {
        let endpoint = CopilotUsageEndpoint(environment: environment, client: HTTPClient(.init()))
        let hosts = endpoint.ghConfigFolder + "/hosts.yml"
        let shown = SourcePresence.shown(hosts, environment: environment)
        if CopilotUsageEndpoint.hostsEntry(atPath: hosts).token != nil {
            return SourcePresence(found: true, "signed in to GitHub (\(shown))")
        }
        let inShell = ["GH_TOKEN", "GITHUB_TOKEN"].filter { !(environment[$0] ?? "").isEmpty }
        return SourcePresence(
            found: false,
            inShell.isEmpty
                ? "no GitHub token in \(shown)"
                : "\(inShell[0]) is set in this shell only, which a schedule does not see (`gh auth login` keeps one in \(shown))"
        )
    }

    public func make(path: String?, context: CollectorContext) throws -> Collector {
        var endpoint = CopilotUsageEndpoint(environment: context.environment, client: try context.httpClient())
        if let path { endpoint.ghConfigFolder = path }
        return Collector(name: name, isEndpoint: true) { [endpoint] now in endpoint.collect(now: now) }
    }
}
