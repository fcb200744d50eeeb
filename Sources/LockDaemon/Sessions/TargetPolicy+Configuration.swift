import LockCore
import LockStore

extension TargetPolicy {
    /// The policy of a daemon running `enforcers` (names) with `configuration`'s device groups:
    /// Unbound tells clients apart (views), dnsmasq answers every client alike.
    /// Under a scratch root (`scratchRoot`), LAN enforcers the configuration names but that do
    /// not run are remembered, so that the refusal says to name them with `--enforcers`.
    init(configuration: DaemonConfiguration, enforcers: [String], configFile: String, scratchRoot: Bool = false) {
        // The widest reach of the LAN enforcers that run (each kind says its own).
        let reaches = enforcers.compactMap { EnforcerKind.named($0)?.lanReach }
        let reach: LANReach = reaches.first { $0 == .perDevice } ?? reaches.first ?? .none
        let heldBack = (scratchRoot ? configuration.enforcers ?? [] : []).filter {
            EnforcerKind.named($0)?.lanReach != nil && !enforcers.contains($0)
        }
        self.init(groups: configuration.lan.groups, reach: reach, configFile: configFile, heldBack: heldBack)
    }
}
