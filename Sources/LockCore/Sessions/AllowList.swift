/// What stays reachable while a profile in allowlist mode (`mode = "allowlist"`) is active:
/// everything else that leaves the machine is refused.
///
/// Enforcers that can only remove names (the hosts file) cannot express an allowlist and ignore
/// it; the firewall enforcer implements it.
public struct AllowList: Sendable, Equatable, Hashable, Codable {
    /// Allowed domain names, normalised like `DesiredBlock.domains` (`www.` twins included by
    /// whoever builds the list), sorted and unique. Each allows the addresses it resolves to.
    public var domains: [String]
    /// Allowed addresses and networks, host bits cleared, sorted and unique.
    public var addresses: [IPNetwork]

    /// Creates an allowlist; both lists are sorted and de-duplicated.
    public init(domains: some Sequence<String> = [], addresses: some Sequence<IPNetwork> = []) {
        self.domains = Array(Set(domains)).sorted()
        self.addresses = Array(Set(addresses)).sorted()
    }
}
