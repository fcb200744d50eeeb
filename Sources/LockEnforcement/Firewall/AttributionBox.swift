import LockCore
import Synchronization

/// Blocked addresses and their names, shared between the controller and the NFLOG thread.
final class AttributionBox: Sendable {
    private let state = Mutex<[IPNetwork: String]>([:])

    func set(_ attribution: [IPNetwork: String]) { state.withLock { $0 = attribution } }

    func name(of address: IPNetwork) -> String? { state.withLock { $0[address] } }
}
