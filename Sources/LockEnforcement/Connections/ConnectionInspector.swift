/// Judges new TCP connections by the name their first payload asks for, one queued packet at a
/// time, collecting a ClientHello that spans several segments. Owned by one thread.
///
/// A connection gets a verdict once: `.allow` (its connection mark then keeps its later packets
/// out of the queue), or `.refuse` (the mark makes the firewall reset it). Until then each
/// packet passes on its own (`.pass`): the handshake's ACK, and the first segments of a long
/// ClientHello, which cannot reach the server's application without the rest.
///
/// A connection the main table handed over (it goes to a blocked name's address, which other
/// sites may share) must earn its way: only a name read and not blocked allows it; no name, a
/// server that speaks first, neither TLS nor HTTP, or no name within the packets looked at
/// refuses it.
struct ConnectionInspector {
    enum Decision: Equatable {
        /// Let this packet through; the connection is judged on later ones.
        case pass
        /// The connection may go on; it is not queued again.
        case allow
        /// The connection may go on without a name read; it is not queued again.
        case allowUnnamed
        /// The connection asks for `name`, blocked by `rule`: reset it.
        case refuse(name: String, rule: String)
        /// A handed-over connection that did not show an allowed name: reset it.
        case refuseUnnamed(reason: String)
    }

    private struct Pending {
        var bytes: [UInt8] = []
        var firstAcknowledgement: UInt32?
        var packets = 0
        var lastSeen: UInt64
    }

    /// Connections still being judged: a handful at a time in practice, bounded against floods.
    private var pending: [QueuedPacket.Flow: Pending] = [:]
    private static let maxPending = 4096
    /// Packets of one connection looked at before it is let go unjudged (the nftables rule
    /// queues the first 24 at most).
    static let maxPackets = 20
    /// Forgotten after this long without a packet (nanoseconds).
    private static let idleLimit: UInt64 = 30_000_000_000

    /// - Parameter needsName: the main table handed the connection over (`ConnectionCheck.needsName`).
    mutating func decide(_ packet: QueuedPacket, now: UInt64, needsName: Bool = false, verdict: (String) -> String?) -> Decision {
        var state = pending[packet.flow] ?? Pending(lastSeen: now)
        state.lastSeen = now
        state.packets += 1
        func unnamed(_ reason: String) -> Decision { finish(packet.flow, needsName ? .refuseUnnamed(reason: reason) : .allowUnnamed) }
        if packet.payload.isEmpty {
            // A pure ACK acknowledging more than the handshake: the server spoke first (SSH,
            // SMTP), so this is no TLS or HTTP client connection.
            if packet.flags & 0x10 != 0 {
                if let first = state.firstAcknowledgement, packet.acknowledgement != first {
                    return unnamed("the server spoke first")
                }
                state.firstAcknowledgement = state.firstAcknowledgement ?? packet.acknowledgement
            }
            return keep(packet.flow, state, needsName: needsName)
        }
        state.bytes += packet.payload.prefix(ConnectionName.limit - state.bytes.count)
        switch ConnectionName.parse(state.bytes) {
        case .name(let name):
            if let rule = verdict(name) { return finish(packet.flow, .refuse(name: name, rule: rule)) }
            return finish(packet.flow, .allow)
        case .unnamed:
            return unnamed("its ClientHello or request names no host")
        case .other:
            return unnamed("neither TLS nor HTTP")
        case .needMore:
            return keep(packet.flow, state, needsName: needsName)
        }
    }

    private mutating func keep(_ flow: QueuedPacket.Flow, _ state: Pending, needsName: Bool) -> Decision {
        guard state.packets < Self.maxPackets else {
            return finish(flow, needsName ? .refuseUnnamed(reason: "no name within \(Self.maxPackets) packets") : .allowUnnamed)
        }
        if pending[flow] == nil, pending.count >= Self.maxPending { expire(now: state.lastSeen) }
        if pending[flow] != nil || pending.count < Self.maxPending { pending[flow] = state }
        return .pass
    }

    private mutating func finish(_ flow: QueuedPacket.Flow, _ decision: Decision) -> Decision {
        pending[flow] = nil
        return decision
    }

    /// Drops connections not heard of for a while (closed before they sent anything).
    mutating func expire(now: UInt64) {
        pending = pending.filter { now &- $0.value.lastSeen < Self.idleLimit }
    }

    var pendingCount: Int { pending.count }
}
