import Foundation
import Notify
import TestSupport
import Testing

@testable import AggctlCLI

/// The secrets kept from hooks are every secret a store backend, collector or notifier kind declares,
/// and nothing read anywhere is left undeclared.
struct SecretsTests {
    /// A variable whose name says it holds a secret, read anywhere in the sources, must be one that hooks
    /// and helper programs never get: a new store, collector or notifier that forgets to declare its
    /// secret fails here.
    @Test("every secret-looking variable the sources read is declared a secret")
    func everySecretDeclared() throws {
        let sources = Repository.path("Sources")
        let pattern = try Regex(#""([A-Z][A-Z0-9_]*(TOKEN|PASSWORD|SECRET|ACCESS_KEY)[A-Z0-9_]*)""#)
        var found: Set<String> = []
        let files = FileManager.default.enumerator(atPath: sources)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
            for match in text.matches(of: pattern) { found.insert(String(match.output[1].substring ?? "")) }
        }
        #expect(found.contains("AGGCTL_WEBHOOK_TOKEN") && found.contains("GH_TOKEN"), "the scan sees the sources")
        for name in found.sorted() {
            #expect(SecretEnvironment.aggctl.isSecret(name), "'\(name)' is read but not declared a secret")
        }
    }

    @Test("a hook's environment keeps nothing a store, collector or notifier declares secret")
    func hooksGetNoSecrets() {
        var environment = ["PATH": "/usr/bin", "AGGCTL_WEBDAV_PASSWORD": "p", "AGGCTL_WEBDAV_USER": "u"]
        for name in [
            "AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "AWS_SESSION_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN",
            "GH_TOKEN", "GITHUB_TOKEN", "AGGCTL_WEBHOOK_TOKEN", "AGGCTL_NTFY_TOKEN",
        ] {
            environment[name] = "secret-value"
        }
        #expect(SecretEnvironment.aggctl.withoutSecrets(environment) == ["PATH": "/usr/bin"])
    }
}
