import Foundation
import LockCore
import Logging
import Synchronization

/// Blocks names at connection time: while a block is active, a new TCP connection whose TLS
/// ClientHello (SNI) or plain HTTP request (`Host:`) names a blocked name, or any name under
/// it, is reset, whatever address it goes to and however that address was learnt (another
/// resolver or port, DNS over HTTPS, a cache, a hosts line). Other names on the same address
/// (a CDN's) keep working.
///
/// Its own tables (`ConnectionCheckTables`) queue each new connection's first packets in the
/// original direction to the daemon (`ConnectionCheck`) until a verdict is in, then mark the
/// connection: only the first packets of a connection pay. HTTP/3 (QUIC, UDP 443) is refused during blocks, so
/// browsers fall back to TCP, where the name is read. With Encrypted ClientHello only the
/// outer name (the provider's public name) can be read.
///
/// While it is in force (`inForce`), the firewall hands new TCP connections to blocked names'
/// addresses over to it instead of resetting them; for those, only a name read and not blocked
/// allows the connection (`ConnectionInspector`).
public final class ConnectionNameEnforcer: Enforcer {
    public let name = "connections"

    /// The default queue number ("SL").
    public static let defaultQueue: UInt16 = 0x534C

    private struct State {
        var reader: NFQueueReader?
        var desired: DesiredBlock?
        var lastApplied: Date?
        var lastError: String?
        var tablesInForce = false
    }

    private let queue: UInt16
    private let unavailable: String?
    private let resolveList: @Sendable (BlocklistReference) -> Blocklist?
    private let logger: Logger
    private let policy = Mutex(DNSFilterPolicy.empty)
    private let inspector = Mutex(ConnectionInspector())
    private let state = Mutex(State())
    private let inspected = Atomic<Int>(0)
    private let allowed = Atomic<Int>(0)
    private let refused = Atomic<Int>(0)
    private let onRefused: (@Sendable (RefusedConnection) -> Void)?
    private let reports = Mutex(ReportLimit(perSecond: NFTablesRuleset.logRate))

    /// Creates the enforcer; the queue is bound at the first `apply`.
    ///
    /// - Parameters:
    ///   - unavailable: why the kernel cannot queue packets here (nil when it can): the
    ///     enforcer then reports that it blocks nothing, and the table queues nothing.
    ///   - onRefused: told of refused connections, on the reader's thread; at most
    ///     `NFTablesRuleset.logRate` a second, as the firewall's attempts.
    public init(
        queue: UInt16 = ConnectionNameEnforcer.defaultQueue, unavailable: String? = nil,
        lists: @escaping @Sendable (BlocklistReference) -> Blocklist? = { _ in nil },
        onRefused: (@Sendable (RefusedConnection) -> Void)? = nil,
        logger: Logger = Logger(label: "simplylock.connections")
    ) {
        self.queue = queue
        self.unavailable = unavailable
        self.resolveList = lists
        self.onRefused = onRefused
        self.logger = logger
    }

    /// Binds the queue and puts the queue tables in force while a block names sites; removes
    /// both otherwise. The tables are rewritten at every apply (one small transaction), so a
    /// table deleted from outside is back at the next.
    public func apply(_ desired: DesiredBlock) async throws {
        let previous = policy.withLock { $0 }
        let next = DNSFilterPolicy(desired, resolve: resolveList, reusing: previous, seed: UInt64.random(in: .min ... .max))
        policy.withLock { $0 = next }
        let error = state.withLock { current -> String? in
            current.desired = desired
            current.lastApplied = Date()
            if let unavailable {
                current.lastError = unavailable
                return unavailable
            }
            do throws(NFTablesError) {
                if next.isEmpty {
                    try lift(&current)
                } else {
                    // The reader first: a table queueing to nobody would let everything pass.
                    if current.reader == nil {
                        let reader = try NFQueueReader(queue: queue, markMask: ConnectionCheck.packetBits) { [self] in judge($0, mark: $1) }
                        reader.start()
                        current.reader = reader
                    }
                    try ConnectionCheckTables.apply(ConnectionCheck(queue: queue))
                    current.tablesInForce = true
                }
                current.lastError = nil
                return nil
            } catch {
                current.lastError = error.message
                return error.message
            }
        }
        if let error { logger.error("connection-time name check not running", metadata: ["reason": "\(error)"]) }
    }

    /// True while the queue tables are in force and the queue is read: the firewall then hands
    /// TCP to blocked names' addresses over to this check (`NFTablesRuleset.connectionHandoff`).
    public var inForce: Bool { state.withLock { $0.reader != nil && $0.tablesInForce } }

    /// Removes the tables, then stops reading the queue.
    private func lift(_ current: inout State) throws(NFTablesError) {
        try ConnectionCheckTables.remove()
        current.tablesInForce = false
        current.reader?.stop()
        current.reader = nil
    }

    /// Removes the queue tables whoever left them (`simplylockd --release`, whatever the
    /// enforcers configured).
    public static func removeTables() throws(NFTablesError) { try ConnectionCheckTables.remove() }

    /// Nil when this kernel takes the queue tables (nft_compat with xt_NFQUEUE), else why not:
    /// checked by sending them in a batch without its end, which the kernel validates and aborts.
    public static func queueUnavailable() -> String? {
        do {
            try ConnectionCheckTables.apply(ConnectionCheck(queue: defaultQueue), checkOnly: true)
            return nil
        } catch {
            return "the kernel cannot queue packets to programs from nftables (nft_compat and xt_NFQUEUE are needed): \(error.message)"
        }
    }

    /// Forgets connections that closed before sending anything, now and then.
    public func watch() async {
        while (try? await Task.sleep(for: .seconds(30))) != nil {
            let now = UInt64(DispatchTime.now().uptimeNanoseconds)
            inspector.withLock { $0.expire(now: now) }
        }
        stop()
    }

    /// At shutdown: removes the tables and stops reading the queue. (Killed instead, the daemon
    /// leaves the tables behind, and `bypass` lets what they queue through.)
    public func stop() {
        state.withLock { current in
            do throws(NFTablesError) { try lift(&current) } catch {
                logger.error("cannot remove the connection check's tables", metadata: ["reason": "\(error.message)"])
                current.reader?.stop()
                current.reader = nil
            }
        }
    }

    private func judge(_ packet: ArraySlice<UInt8>, mark: UInt32) -> NFQueueReader.Verdict {
        let needsName = mark & ConnectionCheck.needsName != 0
        guard let parsed = QueuedPacket(ipPacket: packet) else {
            // Unreadable (IPv6 extension headers): a handed-over one cannot show its name.
            if needsName { return .init(verdict: NFQueueReader.Verdict.repeatHook, packetMark: ConnectionCheck.refused) }
            return .init(verdict: NFQueueReader.Verdict.accept)
        }
        inspected.add(1, ordering: .relaxed)
        let policy = self.policy.withLock { $0 }
        let now = UInt64(DispatchTime.now().uptimeNanoseconds)
        let decision = inspector.withLock { inspector in
            if inspector.pendingCount > 256 { inspector.expire(now: now) }
            return inspector.decide(parsed, now: now, needsName: needsName) { policy.verdict(for: $0) }
        }
        switch decision {
        case .pass:
            return .init(verdict: NFQueueReader.Verdict.accept)
        case .allow, .allowUnnamed:
            allowed.add(1, ordering: .relaxed)
            // Back through the chain, which marks the connection so that it is not queued again.
            return .init(
                verdict: NFQueueReader.Verdict.repeatHook,
                packetMark: decision == .allow ? ConnectionCheck.allowed : ConnectionCheck.unnamed)
        case .refuse(let name, let rule):
            refused.add(1, ordering: .relaxed)
            if let onRefused, reports.withLock({ $0.admit(now: now) }) {
                onRefused(RefusedConnection(name: name, rule: rule, address: RefusedConnection.text(of: parsed.flow.destination)))
            }
            // Back through the chain, which marks the connection refused and resets it.
            return .init(verdict: NFQueueReader.Verdict.repeatHook, packetMark: ConnectionCheck.refused)
        case .refuseUnnamed(let reason):
            refused.add(1, ordering: .relaxed)
            let address = RefusedConnection.text(of: parsed.flow.destination)
            if let onRefused, reports.withLock({ $0.admit(now: now) }) {
                // No name to report: the address, which a blocked name resolves to, stands for it.
                onRefused(RefusedConnection(name: address, rule: "shares an address with a blocked name; \(reason)", address: address))
            }
            return .init(verdict: NFQueueReader.Verdict.repeatHook, packetMark: ConnectionCheck.refused)
        }
    }

    public func status() async -> EnforcerStatus {
        let current = state.withLock { $0 }
        let policy = self.policy.withLock { $0 }
        var details: [String: EnforcerStatus.Detail] = [
            "queue": .count(Int(queue)),
            "reading": .text(current.reader == nil ? "no" : "yes"),
            "tables": .text(current.tablesInForce ? "ip and ip6 \(ConnectionCheckTables.name)" : "none"),
            "inspected": .count(inspected.load(ordering: .relaxed)),
            "allowed": .count(allowed.load(ordering: .relaxed)),
            "refused": .count(refused.load(ordering: .relaxed)),
            "covers": .text("new TCP connections naming a blocked name (TLS SNI, HTTP Host); HTTP/3 refused during blocks"),
        ]
        if let unavailable { details["problem"] = .text(unavailable) }
        return EnforcerStatus(
            name: name, applied: current.lastError == nil && !policy.isEmpty && current.reader != nil && current.tablesInForce,
            elements: policy.nameCount,
            lastApplied: current.lastApplied, lastError: current.lastError, details: details)
    }

    public var scope: EnforcerScope? {
        EnforcerScope(
            covers: "new TCP connections whose TLS ClientHello (SNI) or HTTP request (Host) names a blocked name or a name under it, "
                + "whatever address or resolver was used; HTTP/3 is refused during blocks so browsers use TCP",
            misses: "connections with Encrypted ClientHello (only the provider's outer name is read), connections opened before the block, "
                + "data sent in the SYN itself (TCP Fast Open), and tunnels (VPNs, proxies that encrypt the name)")
    }

    public func coverage(of name: String) async -> Coverage? {
        let current = state.withLock { $0 }
        guard let (rule, _) = policy.withLock({ $0 }).explain(name) else {
            return .doesNotCover("no rule blocks it: its connections are let through")
        }
        guard current.reader != nil, current.tablesInForce else {
            return .doesNotCover("the connection check is not running" + (current.lastError.map { ": \($0)" } ?? ""))
        }
        return .blocks(
            "rule \(rule): new connections naming it (TLS SNI, HTTP Host) are reset, whatever address they go to; "
                + "not those using Encrypted ClientHello")
    }
}
