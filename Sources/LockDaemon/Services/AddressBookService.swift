import LockCore
import LockEnforcement
import LockStore
import ServiceLifecycle

/// Saves the addresses the firewall enforcer has resolved, periodically and at shutdown, so a
/// restart (at boot, before the network and DNS are up) can block them at once.
struct AddressBookService: ServiceLifecycle.Service {
    static let stateKey = "nftables.addresses"
    let firewall: NFTablesEnforcer
    let store: StateStore
    let interval: Duration

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                try? store.setValue(await firewall.knownAddresses(), forKey: Self.stateKey)
            }
        }
        try? store.setValue(await firewall.knownAddresses(), forKey: Self.stateKey)
    }
}
