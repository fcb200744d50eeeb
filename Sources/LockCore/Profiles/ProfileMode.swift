/// How a profile's domains and addresses are read.
public enum ProfileMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// They are blocked; everything else stays reachable (the default).
    case blocklist
    /// They are the only things reachable; everything else that leaves the machine is refused
    /// (only the firewall enforcer can do this; the hosts file cannot).
    case allowlist
}
