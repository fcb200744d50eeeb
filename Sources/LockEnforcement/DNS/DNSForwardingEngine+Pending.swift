import NIOCore

/// What the forwarding engine keeps per query: where its answer goes back to, the query while
/// it is in flight, and its deadline.
extension DNSForwardingEngine {
    /// Where an answer goes back to.
    enum Client {
        case datagram(any Channel, NIOCore.SocketAddress)
        case stream(any Channel)

        var description: String {
            switch self {
            case .datagram(_, let address): address.ipAddress ?? "\(address)"
            case .stream(let channel): channel.remoteAddress?.ipAddress ?? "unknown"
            }
        }
        var overTCP: Bool { if case .stream = self { true } else { false } }
    }

    struct Pending {
        var client: Client
        /// The query exactly as the client sent it (its ID included).
        var packet: ByteBuffer
        var query: DNSQuery
        var tries: Int
        var server: DNSUpstreamServer
        var serverIndex: Int
        var serial: UInt64
        /// The server the client sent it to (a redirected query): every try goes there.
        var original: Bool = false
        /// The metered name it counts for once answered (see `DNSForwarder.setMetered`).
        var metered: String? = nil
        /// Where its answer is kept (nil: not kept, the cache is off).
        var cacheKey: [UInt8]? = nil
    }

    struct Timeout {
        var key: UInt32
        var serial: UInt64
        var deadline: NIODeadline
    }
}
