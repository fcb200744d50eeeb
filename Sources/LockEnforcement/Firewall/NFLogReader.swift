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
    private let fd: Int32
    private let stopped = Atomic<Bool>(false)
    private let onPacket: @Sendable (IPNetwork) -> Void

    /// Binds `group`, or throws why it cannot.
    init(group: UInt16, onPacket: @escaping @Sendable (IPNetwork) -> Void) throws(NFTablesError) {
        self.group = group
        self.onPacket = onPacket
        let fd = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue | SOCK_CLOEXEC.rawValue), NETLINK_NETFILTER)
        guard fd >= 0 else { throw NFTablesError(message: "NFLOG socket: \(String(cString: strerror(errno)))") }
        var local = sockaddr_nl()
        local.nl_family = sa_family_t(AF_NETLINK)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_nl>.size)) }
        }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard bound == 0 else {
            close(fd)
            throw NFTablesError(message: "NFLOG bind: \(String(cString: strerror(errno)))")
        }
        do {
            try Self.configure(fd, group: group, attribute: Self.attributeCommand, value: [Self.commandBind])
            var mode = withUnsafeBytes(of: Self.copyRange.bigEndian, Array.init)
            mode += [Self.copyPacket, 0]
            try Self.configure(fd, group: group, attribute: Self.attributeMode, value: mode)
            // Each packet at once: by default the kernel gathers them for up to a second.
            try Self.configure(
                fd, group: group, attribute: Self.attributeQueueThreshold, value: withUnsafeBytes(of: UInt32(1).bigEndian, Array.init))
        } catch {
            close(fd)
            throw error
        }
        self.fd = fd
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

    deinit {
        try? Self.configure(fd, group: group, attribute: Self.attributeCommand, value: [Self.commandUnbind])
        close(fd)
    }

    private func loop() {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while !stopped.load(ordering: .relaxed) {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 250) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            // ENOBUFS: packets were lost; the counters still count them.
            guard count > 0 else { continue }
            for message in NetlinkMessages(bytes: buffer[0..<count])
            where message.type == (Self.subsystem << 8) | Self.messagePacket {
                if let payload = message.attribute(Self.attributePayload), let address = Self.destination(of: payload) {
                    onPacket(address)
                }
            }
        }
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

    /// Sends one configuration message for `group` and waits for the kernel's acknowledgement.
    private static func configure(_ fd: Int32, group: UInt16, attribute: UInt16, value: [UInt8]) throws(NFTablesError) {
        let attributeLength = 4 + value.count
        let padded = (attributeLength + 3) & ~3
        let length = 16 + 4 + padded
        let sequence = UInt32.random(in: 1 ... .max)
        var request = [UInt8](repeating: 0, count: length)
        request.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: UInt32(length), toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(of: (subsystem << 8) | messageConfig, toByteOffset: 4, as: UInt16.self)
            raw.storeBytes(of: UInt16(NLM_F_REQUEST | NLM_F_ACK), toByteOffset: 6, as: UInt16.self)
            raw.storeBytes(of: sequence, toByteOffset: 8, as: UInt32.self)
            raw[16] = UInt8(AF_UNSPEC)
            raw[17] = UInt8(NFNETLINK_V0)
            raw.storeBytes(of: group.bigEndian, toByteOffset: 18, as: UInt16.self)
            raw.storeBytes(of: UInt16(attributeLength), toByteOffset: 20, as: UInt16.self)
            raw.storeBytes(of: attribute, toByteOffset: 22, as: UInt16.self)
            for (index, byte) in value.enumerated() { raw[24 + index] = byte }
        }
        var kernel = sockaddr_nl()
        kernel.nl_family = sa_family_t(AF_NETLINK)
        let sent = request.withUnsafeBytes { bytes in
            withUnsafePointer(to: &kernel) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
                }
            }
        }
        guard sent == request.count else { throw NFTablesError(message: "NFLOG configuration: \(String(cString: strerror(errno)))") }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw NFTablesError(message: "NFLOG configuration: no answer (\(String(cString: strerror(errno))))") }
            for message in NetlinkMessages(bytes: buffer[0..<count])
            where message.sequence == sequence && message.type == UInt16(NLMSG_ERROR) {
                let code = message.payload.count >= 4 ? message.payload.withUnsafeBytes { $0.loadUnaligned(as: Int32.self) } : -1
                guard code == 0 else {
                    throw NFTablesError(
                        message: "NFLOG group \(group): \(String(cString: strerror(-code)))"
                            + (code == -EBUSY ? " (another program listens on it)" : ""))
                }
                return
            }
        }
    }
}
