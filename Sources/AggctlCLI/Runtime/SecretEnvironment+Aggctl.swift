import Collectors
import Notify
import Stores

extension SecretEnvironment {
    /// Every secret aggctl reads, as the store backends, collectors and notifier kinds declare them: what
    /// no hook or helper program gets.
    static let aggctl = SecretEnvironment(
        names: StoreRegistry.standard.secretVariables.union(CollectorRegistry.standard.secretVariables),
        prefixes: StoreRegistry.standard.secretPrefixes
    ).union(.notifiers)
}
