/// A named set of LAN devices, by address or network (`kids = ["192.168.1.0/26"]` in the
/// `[lan]` section of simplylockd.toml): sessions may target it, and LAN enforcers that tell
/// clients apart (Unbound, with views) block for its members only.
public struct DeviceGroup: Sendable, Hashable, Codable {
    /// The group's name (a-z, 0-9, '-'; never `local` or `lan`).
    public var name: String
    /// Its members: addresses and networks, sorted and unique.
    public var networks: [IPNetwork]

    /// Creates a group.
    public init(name: String, networks: some Sequence<IPNetwork>) {
        self.name = name
        self.networks = Array(Set(networks)).sorted()
    }
}
