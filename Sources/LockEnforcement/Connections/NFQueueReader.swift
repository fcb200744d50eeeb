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
/// bind the queue, ask for whole packets, read, answer. A verdict can hand the packet back to
/// its chain (`NF_REPEAT`) with bits set in its *packet* mark (only our bits change), which the
/// chain copies into the connection's mark (`ConnectionCheckTables`): setting the connection
/// mark from here (`NFQA_CT`) needs CONFIG_NETFILTER_NETLINK_GLUE_CT, which kernels may lack,
/// and is then silently ignored. A queue has one listener per network namespace; while nobody
/// listens (the daemon gone), `bypass` lets packets through.
final class NFQueueReader: Sendable {
    private static let subsystem: UInt16 = 3  // NFNL_SUBSYS_QUEUE
    private static let messagePacket: UInt16 = 0  // NFQNL_MSG_PACKET
    private static let messageVerdict: UInt16 = 1  // NFQNL_MSG_VERDICT
    private static let messageConfig: UInt16 = 2  // NFQNL_MSG_CONFIG

    /// What to do with one packet.
    struct Verdict {
        /// NF_ACCEPT (1) or NF_REPEAT (4).
        var verdict: UInt32
        /// Bits to set in the packet's mark (within `markMask`), if any.
        var packetMark: UInt32?

        static let accept: UInt32 = 1
        static let repeatHook: UInt32 = 4
    }

    let queue: UInt16
    private let markMask: UInt32
    private let socket: NetfilterSocket
    private let stopped = Atomic<Bool>(false)
    private let decide: @Sendable (_ packet: ArraySlice<UInt8>, _ mark: UInt32) -> Verdict

    /// Binds `queue`, or throws why it cannot (another program holds it, no CAP_NET_ADMIN).
    /// `decide` is given each packet with its mark; every verdict clears `markMask`'s bits from
    /// that mark and sets the verdict's own.
    init(queue: UInt16, markMask: UInt32, decide: @escaping @Sendable (_ packet: ArraySlice<UInt8>, _ mark: UInt32) -> Verdict)
        throws(NFTablesError)
    {
        self.queue = queue
        self.markMask = markMask
        self.decide = decide
        do throws(NetfilterSocket.Failure) {
            socket = try NetfilterSocket(bound: true, timeout: timeval(tv_sec: 2, tv_usec: 0), receiveBuffer: 4 << 20)
            // NFQA_CFG_CMD: bind (command 1, padding, protocol family unused).
            try request(Self.messageConfig, NetfilterSocket.attribute(1, [1, 0, 0, 0]), acknowledged: true)
            // NFQA_CFG_PARAMS: copy whole packets (mode 2) up to 64 KiB.
            try request(
                Self.messageConfig, NetfilterSocket.attribute(2, NetfilterSocket.bigEndian(UInt32(0xffff)) + [2]), acknowledged: true)
        } catch {
            throw NFTablesError(
                message: "NFQUEUE queue \(queue): \(error)"
                    + (error.code == EBUSY || error.code == EPERM ? " (another program may hold it)" : ""))
        }
    }

    /// Reads on a thread of its own until `stop()`.
    func start() {
        let thread = Thread { [self] in loop() }
        thread.name = "simplylock-nfqueue"
        thread.start()
    }

    /// Releases the queue at once and ends the reading thread within a quarter of a second.
    ///
    /// At once, because a block that ends and another that starts right after (a schedule's
    /// edge, a Pomodoro phase) bind the queue again from a new reader while this one's thread may
    /// still hold its socket: the kernel refuses a second listener (EPERM), and the check would
    /// stay off for the whole next block.
    func stop() {
        stopped.store(true, ordering: .relaxed)
        unbind()
    }

    deinit { unbind() }

    /// NFQA_CFG_CMD unbind (2); packets queued meanwhile are let through by `bypass`, or dropped
    /// when queued without it. Refused harmlessly when another reader holds the queue by then.
    private func unbind() {
        try? request(Self.messageConfig, NetfilterSocket.attribute(1, [2, 0, 0, 0]), acknowledged: false)
    }

    private func loop() {
        var buffer = [UInt8](repeating: 0, count: 0x10000 + 4096)
        while !stopped.load(ordering: .relaxed) {
            // Lost packets (ENOBUFS): the kernel could not queue them, and the connections
            // retransmit them.
            guard case .messages(let messages) = socket.receive(within: 250, into: &buffer) else { continue }
            for message in messages where message.type == (Self.subsystem << 8) | Self.messagePacket {
                guard let header = message.attribute(1), header.count >= 4 else { continue }
                let id = header.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                let payload = message.attribute(10) ?? []
                // The packet's mark (NFQA_MARK, absent when 0).
                let current = (message.attribute(3) ?? []).prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                let verdict = decide(payload, current)
                var attributes = NetfilterSocket.attribute(2, NetfilterSocket.bigEndian(verdict.verdict) + NetfilterSocket.bigEndian(id))
                // NFQA_MARK replaces the whole mark: every bit but ours is kept.
                let mark = current & ~markMask | (verdict.packetMark ?? 0) & markMask
                if mark != current { attributes += NetfilterSocket.attribute(3, NetfilterSocket.bigEndian(mark)) }
                try? request(Self.messageVerdict, attributes, acknowledged: false)
            }
        }
    }

    /// Sends one message for the queue; with `acknowledged`, waits for the kernel's answer.
    private func request(_ type: UInt16, _ attributes: [UInt8], acknowledged: Bool) throws(NetfilterSocket.Failure) {
        try socket.request(
            subsystem: Self.subsystem, type: type, resource: queue, attributes: attributes, acknowledged: acknowledged,
            waiting: acknowledged)
    }
}
