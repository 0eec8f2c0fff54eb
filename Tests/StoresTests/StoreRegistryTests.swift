import Foundation
import Stores
import Testing

/// Each store kind declares what it reads from the environment; the manual page and the list of secrets
/// kept from hooks are made from those declarations.
struct StoreRegistryTests {
    @Test("every secret a store reads is described for the manual, by name or by its prefix")
    func secretsAreDescribed() {
        for backend in StoreRegistry.standard.backends {
            let described = backend.variables.map(\.names).joined(separator: ", ")
            for secret in backend.secretVariables {
                #expect(described.contains(secret), "\(backend.name): \(secret) is described")
            }
            for prefix in backend.secretPrefixes {
                #expect(described.contains(prefix), "\(backend.name): variables under \(prefix) are described")
            }
        }
        #expect(StoreRegistry.standard.secretVariables.contains("AWS_SECRET_ACCESS_KEY"))
    }
}
