import CNFTables
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Finds where a redirected connection or datagram was going before the nftables `redirect`
/// rewrote its destination, by asking conntrack (ctnetlink `IPCTNL_MSG_CT_GET`) for the entry
/// whose reply direction runs from the forwarder's socket back to the client.
///
/// Chosen over the alternatives because it works for UDP and TCP alike with the redirect the
/// table already has: `SO_ORIGINAL_DST` answers for TCP only, `IP_RECVORIGDSTADDR` needs
/// TPROXY, which the output hook lacks (it needs policy routing), and a port per upstream
/// server needs to know every server in advance (a local stub's upstreams are its own).
///
/// One blocking netlink request per lookup (the kernel answers within the `sendto`; about
/// 10 µs), on the forwarder's loop thread; not thread-safe.
final class ConntrackLookup {
    private static let subsystem: UInt16 = 1  // NFNL_SUBSYS_CTNETLINK
    private static let messageGet: UInt16 = 1  // IPCTNL_MSG_CT_GET
    private static let nested: UInt16 = 0x8000  // NLA_F_NESTED
    private static let tupleOriginal: UInt16 = 1  // CTA_TUPLE_ORIG
    private static let tupleReply: UInt16 = 2  // CTA_TUPLE_REPLY
    private static let tupleIP: UInt16 = 1  // CTA_TUPLE_IP
    private static let tupleProtocol: UInt16 = 2  // CTA_TUPLE_PROTO
    private static let protocolNumber: UInt16 = 1  // CTA_PROTO_NUM
    private static let sourcePort: UInt16 = 2  // CTA_PROTO_SRC_PORT
    private static let destinationPort: UInt16 = 3  // CTA_PROTO_DST_PORT

    private let socket: NetfilterSocket

    /// Opens the netlink socket and checks that the kernel answers lookups here; nil when it
    /// cannot (no CAP_NET_ADMIN, no conntrack), with the reason in `failure`.
    init?(failure: inout String?) {
        do throws(NetfilterSocket.Failure) {
            socket = try NetfilterSocket(bound: false, timeout: timeval(tv_sec: 0, tv_usec: 200_000))
        } catch {
            failure = "conntrack netlink \(error)"
            return nil
        }
        // A tuple nobody uses: "no such entry" proves the kernel answers; EPERM or a missing
        // nf_conntrack_netlink do not.
        let probe = try? NIOCore.SocketAddress(ipAddress: "127.0.0.1", port: 9)
        if let probe {
            switch query(protocol: UInt8(IPPROTO_UDP), local: probe, peer: probe) {
            case .failure(let code) where code != ENOENT:
                failure = "conntrack lookups are refused: \(String(cString: strerror(code)))"
                return nil
            default:
                break
            }
        }
    }

    /// The destination a client's packet had before it was redirected to `local`; nil when
    /// conntrack knows no such flow (the client sent it to `local` itself).
    func originalDestination(protocol proto: Int32, local: NIOCore.SocketAddress, peer: NIOCore.SocketAddress) -> NIOCore.SocketAddress? {
        if case .success(let address) = query(protocol: UInt8(proto), local: local, peer: peer) { return address }
        return nil
    }

    private enum Answer {
        case success(NIOCore.SocketAddress?)
        case failure(Int32)
    }

    private func query(protocol proto: UInt8, local: NIOCore.SocketAddress, peer: NIOCore.SocketAddress) -> Answer {
        guard let source = Self.addressBytes(local), let destination = Self.addressBytes(peer), source.count == destination.count,
            let sourcePort = local.port, let destinationPort = peer.port
        else { return .failure(EINVAL) }
        let v4 = source.count == 4
        let attribute = NetfilterSocket.attribute
        // The reply direction of a redirected flow runs from the forwarder's socket to the client.
        let ip = attribute(v4 ? 1 : 3, source) + attribute(v4 ? 2 : 4, destination)
        let ports =
            attribute(Self.protocolNumber, [proto])
            + attribute(Self.sourcePort, NetfilterSocket.bigEndian(UInt16(sourcePort)))
            + attribute(Self.destinationPort, NetfilterSocket.bigEndian(UInt16(destinationPort)))
        let tuple = attribute(Self.tupleIP | Self.nested, ip) + attribute(Self.tupleProtocol | Self.nested, ports)
        do throws(NetfilterSocket.Failure) {
            let reply = try socket.request(
                subsystem: Self.subsystem, type: Self.messageGet, family: UInt8(v4 ? AF_INET : AF_INET6),
                attributes: attribute(Self.tupleReply | Self.nested, tuple), waiting: true)
            guard let reply else { return .failure(ENOENT) }
            return .success(Self.originalDestination(reply, v4: v4))
        } catch {
            return .failure(error.code)
        }
    }

    /// CTA_TUPLE_ORIG's destination address and port in a conntrack entry.
    private static func originalDestination(_ reply: NetlinkMessages.Message, v4: Bool) -> NIOCore.SocketAddress? {
        guard let tuple = reply.attribute(tupleOriginal),
            let ip = nestedAttribute(tuple, tupleIP), let address = nestedAttribute(ip, v4 ? 2 : 4),
            let ports = nestedAttribute(tuple, tupleProtocol), let port = nestedAttribute(ports, destinationPort), port.count == 2
        else { return nil }
        let portNumber = Int(port[port.startIndex]) << 8 | Int(port[port.startIndex + 1])
        if v4, address.count == 4 {
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = UInt16(portNumber).bigEndian
            withUnsafeMutableBytes(of: &sin.sin_addr) { $0.copyBytes(from: address) }
            return NIOCore.SocketAddress(sin, host: "")
        }
        guard !v4, address.count == 16 else { return nil }
        var sin6 = sockaddr_in6()
        sin6.sin6_family = sa_family_t(AF_INET6)
        sin6.sin6_port = UInt16(portNumber).bigEndian
        withUnsafeMutableBytes(of: &sin6.sin6_addr) { $0.copyBytes(from: address) }
        return NIOCore.SocketAddress(sin6, host: "")
    }

    private static func nestedAttribute(_ bytes: ArraySlice<UInt8>, _ wanted: UInt16) -> ArraySlice<UInt8>? {
        var offset = bytes.startIndex
        while offset + 4 <= bytes.endIndex {
            let length = Int(NetlinkMessages.native16(bytes, offset))
            let type = NetlinkMessages.native16(bytes, offset + 2) & 0x3fff
            guard length >= 4, offset + length <= bytes.endIndex else { return nil }
            if type == wanted { return bytes[(offset + 4)..<(offset + length)] }
            offset += (length + 3) & ~3
        }
        return nil
    }

    private static func addressBytes(_ address: NIOCore.SocketAddress) -> [UInt8]? {
        switch address {
        case .v4(let v4): withUnsafeBytes(of: v4.address.sin_addr) { Array($0) }
        case .v6(let v6): withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
        default: nil
        }
    }
}
