import LockCore
import LockStore

extension TargetPolicy {
    /// The policy of a daemon running `enforcers` (names) with `configuration`'s device groups:
    /// Unbound tells clients apart (views), dnsmasq answers every client alike.
    init(configuration: DaemonConfiguration, enforcers: [String], configFile: String) {
        let reach: LANReach =
            if enforcers.contains("unbound") { .perDevice } else if enforcers.contains("dnsmasq") { .everyone(enforcer: "dnsmasq") } else {
                .none
            }
        self.init(groups: configuration.lan.groups, reach: reach, configFile: configFile)
    }
}
