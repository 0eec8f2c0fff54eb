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

    public func make(path: String?, context: CollectorContext) throws -> Collector {
        var endpoint = CopilotUsageEndpoint(environment: context.environment, client: try context.httpClient())
        if let path { endpoint.ghConfigFolder = path }
        return Collector(name: name, isEndpoint: true) { [endpoint] now in endpoint.collect(now: now) }
    }
}
