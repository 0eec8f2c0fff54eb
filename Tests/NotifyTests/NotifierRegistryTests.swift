import Foundation
import Notify
import TestSupport
import Testing

/// The registry is where every notifier kind declares itself: values, help and secrets come from it.
struct NotifierRegistryTests {
    @Test("each --notify value finds its kind and argument; a value of no kind finds none")
    func findsKinds() {
        let registry = NotifierRegistry.standard
        #expect(registry.kind(of: "stdout")?.kind.name == "stdout")
        #expect(registry.kind(of: "stdout")?.argument == nil)
        #expect(registry.kind(of: "webhook:https://h/x")?.argument == "https://h/x")
        #expect(registry.kind(of: "command:/bin/true")?.kind.name == "command")
        #expect(registry.kind(of: "stdoutx") == nil)
        #expect(registry.kind(of: "webhook") == nil)
        for kind in registry.kinds {
            #expect(kind.form.hasPrefix(kind.name), "\(kind.name)'s form names it")
            #expect(registry.choices.contains(kind.takesArgument ? kind.name + ":" : kind.name))
            for secret in kind.secretVariables {
                #expect(kind.variables.contains { $0.name.contains(secret) }, "\(secret) is described for the manual")
                #expect(SecretEnvironment.standard.isSecret(secret), "\(secret) is kept from hooks")
            }
        }
    }

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
        #expect(found.contains("AGGCTL_WEBHOOK_TOKEN"), "the scan sees the sources")
        for name in found.sorted() {
            #expect(SecretEnvironment.standard.isSecret(name), "'\(name)' is read but not declared a secret")
        }
    }

    @Test("a hook's environment keeps nothing a registered kind declares secret")
    func hooksGetNoSecrets() {
        var environment = ["PATH": "/usr/bin", "AGGCTL_WEBDAV_PASSWORD": "p", "AWS_SECRET_ACCESS_KEY": "k"]
        for kind in NotifierRegistry.standard.kinds {
            for secret in kind.secretVariables { environment[secret] = "secret-value" }
        }
        let passed = SecretEnvironment.standard.withoutSecrets(environment)
        #expect(passed == ["PATH": "/usr/bin"])
    }
}
