/// One query the DNS filter answered itself because its name is blocked: what insights count as
/// a blocked attempt.
public struct DNSBlockedQuery: Sendable, Equatable {
    /// The name asked for, canonical (lowercase, no trailing dot).
    public var name: String
    /// The rule that blocked it (`BlockRules.notAllowed` for a name an allowlist leaves out).
    public var rule: String
    /// The client's address as text (`127.0.0.1`, `::1`): the program's machine; with the
    /// nftables redirect in force, local programs and the local stub resolver alike.
    public var client: String
    /// The query type (1 A, 28 AAAA, 65 HTTPS, …).
    public var type: UInt16
    /// True when the query came over TCP.
    public var overTCP: Bool

    /// Creates a record.
    public init(name: String, rule: String, client: String, type: UInt16, overTCP: Bool) {
        self.name = name
        self.rule = rule
        self.client = client
        self.type = type
        self.overTCP = overTCP
    }
}
