import LockCore
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An upstream DNS server as the forwarder's sockets address it.
struct DNSUpstreamServer: Sendable {
    /// 0 for IPv4, 1 for IPv6: which of the forwarder's upstream socket groups reaches it.
    let family: Int
    let address: NIOCore.SocketAddress
    let description: String

    init(_ server: ResolverConfiguration.Server) {
        family = server.address.family == .ipv4 ? 0 : 1
        description = server.description
        let host = server.address.description
        address = SocketAddress(address: server.address, port: server.port, scopeID: server.scopeID).withSockAddr { pointer, _ in
            if server.address.family == .ipv4 {
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { NIOCore.SocketAddress($0.pointee, host: host) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { NIOCore.SocketAddress($0.pointee, host: host) }
        }
    }

    /// A server a redirected query was sent to (its original destination).
    init(original address: NIOCore.SocketAddress) {
        self.address = address
        if case .v6 = address { family = 1 } else { family = 0 }
        let host = address.ipAddress ?? "?"
        let port = address.port ?? 53
        description = port == 53 ? host : family == 1 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// True when a packet from `source` comes from this server (address and port; the scope is
    /// ignored, the kernel may report it differently from how it was configured).
    func isSource(_ source: NIOCore.SocketAddress) -> Bool {
        switch (address, source) {
        case (.v4(let expected), .v4(let actual)):
            return expected.address.sin_addr.s_addr == actual.address.sin_addr.s_addr
                && expected.address.sin_port == actual.address.sin_port
        case (.v6(let expected), .v6(let actual)):
            guard expected.address.sin6_port == actual.address.sin6_port else { return false }
            var left = expected.address.sin6_addr
            var right = actual.address.sin6_addr
            return memcmp(&left, &right, MemoryLayout<in6_addr>.size) == 0
        default:
            return false
        }
    }
}
