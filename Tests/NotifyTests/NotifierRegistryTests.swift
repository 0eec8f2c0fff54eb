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
                #expect(SecretEnvironment.notifiers.isSecret(secret), "\(secret) is kept from hooks")
            }
        }
    }
}
