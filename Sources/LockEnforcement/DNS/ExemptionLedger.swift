import Synchronization

/// Port-53 traffic as the exemption counters see it: UDP datagrams, and TCP connections (new
/// conntrack entries, which is all a NAT chain sees).
public struct ExemptedTraffic: Sendable, Equatable, CustomStringConvertible {
    public var datagrams: UInt64
    public var connections: UInt64

    public init(datagrams: UInt64 = 0, connections: UInt64 = 0) {
        self.datagrams = datagrams
        self.connections = connections
    }

    public var description: String {
        [(datagrams, "UDP datagram"), (connections, "TCP connection")].filter { $0.0 > 0 }
            .map { "\($0.0) \($0.1)\($0.0 == 1 ? "" : "s")" }.joined(separator: " and ")
    }

    var isZero: Bool { datagrams == 0 && connections == 0 }
}

/// What this process sent to port 53 from sockets carrying an exemption mark, counted before
/// each send: the table counts the same traffic in the kernel, whoever sent it, so the kernel
/// counting more than the daemon sent means another socket borrowed the mark (`ExemptionAccount`).
///
/// One ledger per mark for the whole process: the kernel's counters count every sender with
/// the mark, and the daemon is one process with several senders (the forwarder, the firewall's
/// resolver).
public final class ExemptionLedger: Sendable {
    private static let ledgers = Mutex<[UInt32: ExemptionLedger]>([:])

    /// The ledger of `mark` in this process.
    public static func of(mark: UInt32) -> ExemptionLedger {
        ledgers.withLock { ledgers in
            if let ledger = ledgers[mark] { return ledger }
            let ledger = ExemptionLedger()
            ledgers[mark] = ledger
            return ledger
        }
    }

    /// The ledger of `mark`, nil without a mark (nothing is exempted, nothing to count).
    static func of(mark: UInt32?) -> ExemptionLedger? { mark.map { of(mark: $0) } }

    private let datagrams = Atomic<UInt64>(0)
    private let connections = Atomic<UInt64>(0)

    private init() {}

    /// Called before a datagram goes to `port` (counted only for 53: the counters count only that).
    func sendingDatagram(to port: Int) {
        if port == 53 { datagrams.wrappingAdd(1, ordering: .relaxed) }
    }

    /// Called before a TCP connection to `port` is opened.
    func connecting(to port: Int) {
        if port == 53 { connections.wrappingAdd(1, ordering: .relaxed) }
    }

    /// Everything counted so far.
    public var total: ExemptedTraffic {
        ExemptedTraffic(datagrams: datagrams.load(ordering: .acquiring), connections: connections.load(ordering: .acquiring))
    }
}
