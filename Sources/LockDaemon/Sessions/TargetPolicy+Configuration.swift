import LockCore
import LockStore

extension TargetPolicy {
    /// The policy of a daemon running `enforcers` (names) with `configuration`'s device groups:
    /// Unbound tells clients apart (views), dnsmasq answers every client alike.
    /// Under a scratch root (`scratchRoot`), LAN enforcers the configuration names but that do
    /// not run are remembered, so that the refusal says to name them with `--enforcers`.
    init(configuration: DaemonConfiguration, enforcers: [String], configFile: String, scratchRoot: Bool = false) {
        let reach: LANReach =
            if enforcers.contains("unbound") { .perDevice } else if enforcers.contains("dnsmasq") { .everyone(enforcer: "dnsmasq") } else {
                .none
            }
        let heldBack = (scratchRoot ? configuration.enforcers ?? [] : []).filter {
            ["unbound", "dnsmasq"].contains($0) && !enforcers.contains($0)
        }
        self.init(groups: configuration.lan.groups, reach: reach, configFile: configFile, heldBack: heldBack)
    }
}
