import CNFTables
import Foundation
import LockCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Receives the packets the firewall's `log group N` statements send (NFLOG), as they are
/// refused, and hands each one's destination address to a callback on a thread of its own.
///
/// Plain netlink (`NETLINK_NETFILTER`, the `nfnetlink_log` subsystem): bind the group, ask
/// for the first bytes of each packet (enough for the IP header), read. A group has one
/// listener per network namespace; when another process holds it, or the kernel lacks
/// `nfnetlink_log`, `open` fails and the enforcer counts attempts from its counters alone.
final class NFLogReader: Sendable {
    /// netlink subsystem and message types of `nfnetlink_log` (linux/netfilter/nfnetlink_log.h).
    private static let subsystem: UInt16 = 4
    private static let messagePacket: UInt16 = 0
    private static let messageConfig: UInt16 = 1
    private static let attributeCommand: UInt16 = 1
    private static let attributeMode: UInt16 = 2
    private static let attributeQueueThreshold: UInt16 = 5
    private static let attributePayload: UInt16 = 9
    private static let commandBind: UInt8 = 1
    private static let commandUnbind: UInt8 = 2
    private static let copyPacket: UInt8 = 2
    /// Bytes of each packet to receive: an IPv6 header is 40.
    private static let copyRange: UInt32 = 48

    let group: UInt16
    private let socket: NetfilterSocket
    private let stopped = Atomic<Bool>(false)
    private let onPacket: @Sendable (IPNetwork) -> Void

    /// Binds `group`, or throws why it cannot.
    init(group: UInt16, onPacket: @escaping @Sendable (IPNetwork) -> Void) throws(NFTablesError) {
        self.group = group
        self.onPacket = onPacket
        do throws(NetfilterSocket.Failure) {
            socket = try NetfilterSocket(bound: true, timeout: timeval(tv_sec: 2, tv_usec: 0))
            try configure(Self.attributeCommand, [Self.commandBind])
            try configure(Self.attributeMode, NetfilterSocket.bigEndian(Self.copyRange) + [Self.copyPacket, 0])
            // Each packet at once: by default the kernel gathers them for up to a second.
            try configure(Self.attributeQueueThreshold, NetfilterSocket.bigEndian(UInt32(1)))
        } catch {
            throw NFTablesError(
                message: "NFLOG group \(group): \(error)" + (error.code == EBUSY ? " (another program listens on it)" : ""))
        }
    }

    /// Reads on a thread of its own until `stop()`.
    func start() {
        let thread = Thread { [self] in loop() }
        thread.name = "simplylock-nflog"
        thread.start()
    }

    /// Ends the reading thread within a quarter of a second and releases the group.
    func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
    }

    deinit { try? configure(Self.attributeCommand, [Self.commandUnbind]) }

    private func loop() {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while !stopped.load(ordering: .relaxed) {
            // Lost packets (ENOBUFS) are still counted by the firewall's counters.
            guard case .messages(let messages) = socket.receive(within: 250, into: &buffer) else { continue }
            for message in messages where message.type == (Self.subsystem << 8) | Self.messagePacket {
                if let payload = message.attribute(Self.attributePayload), let address = Self.destination(of: payload) {
                    onPacket(address)
                }
            }
        }
    }

    /// Sends one configuration attribute for the group and waits for the kernel's acknowledgement.
    private func configure(_ attribute: UInt16, _ value: [UInt8]) throws(NetfilterSocket.Failure) {
        try socket.request(
            subsystem: Self.subsystem, type: Self.messageConfig, resource: group, attributes: NetfilterSocket.attribute(attribute, value),
            acknowledged: true, waiting: true)
    }

    /// The destination address of an IPv4 or IPv6 packet's header.
    static func destination(of packet: ArraySlice<UInt8>) -> IPNetwork? {
        guard let first = packet.first else { return nil }
        let bytes = Array(packet)
        switch first >> 4 {
        case 4 where bytes.count >= 20:
            let value = bytes[16..<20].reduce(UInt128(0)) { $0 << 8 | UInt128($1) }
            return try? IPNetwork(family: .ipv4, address: value)
        case 6 where bytes.count >= 40:
            let value = bytes[24..<40].reduce(UInt128(0)) { $0 << 8 | UInt128($1) }
            return try? IPNetwork(family: .ipv6, address: value)
        default:
            return nil
        }
    }
}
