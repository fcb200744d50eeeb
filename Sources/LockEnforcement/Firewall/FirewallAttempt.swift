/// Connections the firewall refused to a blocked address: what insights count as blocked
/// attempts of a site when a program walked past the DNS filter (DNS over HTTPS, an address
/// written into it, a connection opened before the block).
public struct FirewallAttempt: Sendable, Equatable {
    /// The blocked name the address was resolved from, or the address (network) as a profile
    /// lists it.
    public var name: String
    /// The address connected to.
    public var address: String
    /// How many connection attempts: 1 for a real-time event, the counter's increase otherwise.
    public var count: Int
    /// True for an event as it happened (NFLOG), false for a counter read periodically.
    public var realTime: Bool

    /// Creates a record.
    public init(name: String, address: String, count: Int = 1, realTime: Bool) {
        self.name = name
        self.address = address
        self.count = count
        self.realTime = realTime
    }
}
