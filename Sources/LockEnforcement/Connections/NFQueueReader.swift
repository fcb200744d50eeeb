import CNFTables
import Foundation
import LockCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Receives the packets the firewall's `queue num N bypass` rule sends to the daemon (NFQUEUE)
/// and answers each with a verdict, on a thread of its own.
///
/// Plain netlink (`NETLINK_NETFILTER`, the `nfnetlink_queue` subsystem), like `NFLogReader`:
/// bind the queue, ask for whole packets, read, answer. A verdict can change the connection's
/// mark (`NFQA_CT` with `CTA_MARK` and `CTA_MARK_MASK`, only our bits), so that the firewall
/// stops queueing the connection (allowed) or resets it (refused: the packet is handed back to
/// the hook with `NF_REPEAT`, where the reset rule now matches it). A queue has one listener per
/// network namespace; while nobody listens (the daemon gone), `bypass` lets packets through.
final class NFQueueReader: Sendable {
    private static let subsystem: UInt16 = 3  // NFNL_SUBSYS_QUEUE
    private static let messagePacket: UInt16 = 0  // NFQNL_MSG_PACKET
    private static let messageVerdict: UInt16 = 1  // NFQNL_MSG_VERDICT
    private static let messageConfig: UInt16 = 2  // NFQNL_MSG_CONFIG
    private static let nested: UInt16 = 0x8000

    /// What to do with one packet.
    struct Verdict {
        /// NF_ACCEPT (1) or NF_REPEAT (4).
        var verdict: UInt32
        /// Bits to set in the connection's mark (within `markMask`), if any.
        var connectionMark: UInt32?

        static let accept: UInt32 = 1
        static let repeatHook: UInt32 = 4
    }

    let queue: UInt16
    private let markMask: UInt32
    private let fd: Int32
    private let stopped = Atomic<Bool>(false)
    private let decide: @Sendable (ArraySlice<UInt8>) -> Verdict

    /// Binds `queue`, or throws why it cannot (another program holds it, no CAP_NET_ADMIN).
    init(queue: UInt16, markMask: UInt32, decide: @escaping @Sendable (ArraySlice<UInt8>) -> Verdict) throws(NFTablesError) {
        self.queue = queue
        self.markMask = markMask
        self.decide = decide
        let fd = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue | SOCK_CLOEXEC.rawValue), NETLINK_NETFILTER)
        guard fd >= 0 else { throw NFTablesError(message: "NFQUEUE socket: \(String(cString: strerror(errno)))") }
        var local = sockaddr_nl()
        local.nl_family = sa_family_t(AF_NETLINK)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_nl>.size)) }
        }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var size: Int32 = 4 << 20
        setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size))
        guard bound == 0 else {
            close(fd)
            throw NFTablesError(message: "NFQUEUE bind: \(String(cString: strerror(errno)))")
        }
        self.fd = fd
        do {
            // NFQA_CFG_CMD: bind (command 1, padding, protocol family unused).
            try request(type: Self.messageConfig, attributes: Self.attribute(1, [1, 0, 0, 0]), acknowledged: true)
            // NFQA_CFG_PARAMS: copy whole packets (mode 2) up to 64 KiB.
            try request(type: Self.messageConfig, attributes: Self.attribute(2, Self.be32(0xffff) + [2]), acknowledged: true)
        } catch {
            close(fd)
            throw error
        }
    }

    /// Reads on a thread of its own until `stop()`.
    func start() {
        let thread = Thread { [self] in loop() }
        thread.name = "simplylock-nfqueue"
        thread.start()
    }

    /// Ends the reading thread within a quarter of a second; the queue is released with the socket.
    func stop() { stopped.store(true, ordering: .relaxed) }

    deinit {
        // NFQA_CFG_CMD unbind (2); packets queued meanwhile are let through by `bypass`.
        try? request(type: Self.messageConfig, attributes: Self.attribute(1, [2, 0, 0, 0]), acknowledged: false)
        close(fd)
    }

    private func loop() {
        var buffer = [UInt8](repeating: 0, count: 0x10000 + 4096)
        while !stopped.load(ordering: .relaxed) {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 250) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            // ENOBUFS: the kernel dropped packets it could not queue (the queue is full), and
            // the connections retransmit them.
            guard count > 0 else { continue }
            for message in NetlinkMessages(bytes: buffer[0..<count]) where message.type == (Self.subsystem << 8) | Self.messagePacket {
                guard let header = message.attribute(1), header.count >= 4 else { continue }
                let id = header.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                let payload = message.attribute(10) ?? []
                let verdict = decide(payload)
                var attributes = Self.attribute(2, Self.be32(verdict.verdict) + Self.be32(id))
                if let mark = verdict.connectionMark {
                    // CTA_MARK and CTA_MARK_MASK: only our bits of the connection's mark change.
                    attributes += Self.attribute(
                        11 | Self.nested, Self.attribute(8, Self.be32(mark)) + Self.attribute(21, Self.be32(markMask)))
                }
                try? request(type: Self.messageVerdict, attributes: attributes, acknowledged: false)
            }
        }
    }

    /// Sends one message for the queue; with `acknowledged`, waits for the kernel's answer.
    private func request(type: UInt16, attributes: [UInt8], acknowledged: Bool) throws(NFTablesError) {
        let sequence = UInt32.random(in: 1 ... .max)
        var message = Self.native(UInt32(16 + 4 + attributes.count))
        message += Self.native((Self.subsystem << 8) | type)
        message += Self.native(UInt16(NLM_F_REQUEST | (acknowledged ? NLM_F_ACK : 0)))
        message += Self.native(sequence) + Self.native(UInt32(0))
        message += [UInt8(AF_UNSPEC), UInt8(NFNETLINK_V0)] + withUnsafeBytes(of: queue.bigEndian, Array.init)
        message += attributes
        var kernel = sockaddr_nl()
        kernel.nl_family = sa_family_t(AF_NETLINK)
        let sent = message.withUnsafeBytes { bytes in
            withUnsafePointer(to: &kernel) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
                }
            }
        }
        guard sent == message.count else { throw NFTablesError(message: "NFQUEUE: \(String(cString: strerror(errno)))") }
        guard acknowledged else { return }
        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw NFTablesError(message: "NFQUEUE: no answer (\(String(cString: strerror(errno))))") }
            for reply in NetlinkMessages(bytes: buffer[0..<count]) where reply.sequence == sequence && reply.type == UInt16(NLMSG_ERROR) {
                let code = reply.payload.count >= 4 ? reply.payload.withUnsafeBytes { $0.loadUnaligned(as: Int32.self) } : -1
                guard code == 0 else {
                    throw NFTablesError(
                        message: "NFQUEUE queue \(queue): \(String(cString: strerror(-code)))"
                            + (code == -EBUSY || code == -EPERM ? " (another program may hold it)" : ""))
                }
                return
            }
        }
    }

    private static func attribute(_ type: UInt16, _ value: [UInt8]) -> [UInt8] {
        var out = native(UInt16(4 + value.count)) + native(type) + value
        while out.count % 4 != 0 { out.append(0) }
        return out
    }

    private static func native<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }
    private static func be32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
}
