import LockCore

/// Turns names into addresses for the firewall enforcer.
///
/// Implementations must ask real DNS servers and must not read /etc/hosts, where the hosts
/// enforcer maps blocked names to `0.0.0.0`.
public protocol NameResolver: Sendable {
    /// Resolves A and AAAA records of each name, concurrently and within a bounded time.
    /// Every given name gets an entry in the result.
    func resolve(_ names: [String]) async -> [String: NameResolution]

    /// The DNS servers that `resolve` asks. The firewall always lets DNS to them through, so
    /// that neither a block nor an allowlist can cut the resolver off.
    func nameservers() async -> [IPNetwork]
}
