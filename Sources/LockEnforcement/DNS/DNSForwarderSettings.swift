extension DNSForwarder {
    /// How the forwarder listens and forwards; the defaults suit the daemon.
    public struct Settings: Sendable, Equatable {
        /// Addresses to listen on (UDP and TCP each). An IPv6 address the machine does not have
        /// (IPv6 disabled) is skipped with a warning; any other failure to bind is an error.
        public var listenAddresses: [String]
        /// Port to listen on; 0 picks a free one (tests, benchmarks), reported by `start()`.
        /// The daemon uses a fixed port, so that a redirect rule left behind by a crashed
        /// daemon points where its restarted successor listens.
        public var port: UInt16
        /// How long one upstream try may take before the next server is tried.
        public var timeout: Duration
        /// Tries per query (each on the next server); after the last one times out the client
        /// gets SERVFAIL. Two tries of two seconds stay under glibc's five-second timeout.
        public var attempts: Int
        /// `SO_MARK` on every upstream socket, so that the nftables redirect can let the
        /// forwarder's own queries pass; nil sets none. Needs CAP_NET_ADMIN.
        public var mark: UInt32?
        /// TTL of the answers for blocked names: short, so a block lifts promptly.
        public var blockedTTL: UInt32
        /// Queries waiting for upstream at once; beyond that, clients get SERVFAIL at once.
        public var maxInFlight: Int
        /// Client TCP connections open at once; beyond that, new ones are closed.
        public var maxTCPConnections: Int
        /// A client TCP connection idle this long is closed.
        public var tcpIdleTimeout: Duration
        /// UDP sockets per address family for upstream queries: their random source ports add
        /// to the 16-bit query ID against spoofed answers.
        public var upstreamSockets: Int
        /// Receive buffer of every UDP socket, so that a burst of queries (a browser opening a
        /// page, a benchmark) is queued rather than dropped while the loop catches up. Above
        /// `net.core.rmem_max` it needs CAP_NET_ADMIN; without it the kernel's maximum is used.
        public var receiveBufferSize: Int
        /// Upstream answers kept for repeated queries (`DNSAnswerCache`); 0 keeps none.
        public var cacheSize: Int
        /// The longest an answer is kept, whatever its TTL.
        public var cacheMaxTTL: UInt32

        /// Creates settings.
        public init(
            listenAddresses: [String] = ["127.0.0.1", "::1"], port: UInt16 = 0,
            timeout: Duration = .seconds(2), attempts: Int = 2, mark: UInt32? = DNSForwarder.defaultMark,
            blockedTTL: UInt32 = 5, maxInFlight: Int = 8192, maxTCPConnections: Int = 256,
            tcpIdleTimeout: Duration = .seconds(10), upstreamSockets: Int = 4,
            receiveBufferSize: Int = 4 << 20, cacheSize: Int = 10_000, cacheMaxTTL: UInt32 = 3600
        ) {
            self.cacheSize = max(0, cacheSize)
            self.cacheMaxTTL = max(1, cacheMaxTTL)
            self.listenAddresses = listenAddresses
            self.port = port
            self.timeout = timeout
            self.attempts = max(1, attempts)
            self.mark = mark
            self.blockedTTL = min(blockedTTL, 10)
            self.maxInFlight = max(1, maxInFlight)
            self.maxTCPConnections = max(1, maxTCPConnections)
            self.tcpIdleTimeout = tcpIdleTimeout
            self.upstreamSockets = max(1, upstreamSockets)
            self.receiveBufferSize = max(0, receiveBufferSize)
        }
    }
}
