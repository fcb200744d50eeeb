import LockCore
import LockStore

extension TargetPolicy {
    /// The policy of a daemon running `enforcers` (names) with `configuration`'s device groups:
    /// Unbound tells clients apart (views), dnsmasq answers every client alike.
    init(configuration: DaemonConfiguration, enforcers: [String], configFile: String) {
        // The widest reach of the LAN enforcers that run (each kind says its own).
        let reaches = enforcers.compactMap { EnforcerKind.named($0)?.lanReach }
        let reach: LANReach = reaches.first { $0 == .perDevice } ?? reaches.first ?? .none
        self.init(groups: configuration.lan.groups, reach: reach, configFile: configFile)
    }
}
