/// Counters of a running DNS forwarder, for `lockctl status`/`doctor` and benchmarks.
public struct DNSForwarderStatistics: Sendable, Equatable {
    /// Packets received from clients, over UDP and TCP.
    public var queries = 0
    /// Queries answered locally because their name is blocked.
    public var blocked = 0
    /// Queries sent on to an upstream server.
    public var forwarded = 0
    /// Forwarded queries sent to the server the client had sent them to (redirected ones).
    public var toOriginalDestination = 0
    /// Upstream answers passed back to clients.
    public var answered = 0
    /// Queries answered from the answer cache (kept upstream answers, within their TTL).
    public var fromCache = 0
    /// Answers in the cache now.
    public var cacheEntries = 0
    /// Queries answered SERVFAIL: no upstream server answered in time, or none is configured.
    public var failed = 0
    /// Malformed queries answered FORMERR, or other opcodes answered NOTIMP.
    public var refused = 0
    /// Packets ignored (too short, or responses sent to the forwarder).
    public var dropped = 0
    /// Upstream tries that timed out (each try counts).
    public var upstreamTimeouts = 0
    /// Truncated upstream answers fetched again over TCP.
    public var tcpFallbacks = 0
    /// Upstream packets that matched no query in flight (late, duplicate or spoofed).
    public var unmatched = 0
    /// Queries waiting for an upstream answer now.
    public var inFlight = 0
    /// Client TCP connections open now.
    public var tcpConnections = 0

    /// Creates zeroed counters.
    public init() {}
}
