import CNFTNL
import CNFTables
import Foundation
import LockCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Notices when someone else changes the daemon's nftables table, from the kernel's nf_tables
/// notifications (what `nft monitor` prints), and reports it within milliseconds.
///
/// Every transaction's notifications end with a "new generation" message that names the
/// process that made it; a transaction that touched table `inet <table>` and was made by
/// another process is reported. The daemon's own commits are made with the subscription
/// dropped (see `NFTablesCommitter`): as long as anyone listens, the kernel builds a
/// notification per set element, which made a 100 000-element commit about five times slower
/// in measurements here and overflowed the socket buffer.
///
/// If the kernel refuses the subscription, the monitor falls back to comparing the ruleset
/// generation number every second, which notices every change (anyone's, to any table) and
/// so may restore more often than needed, but never misses one.
final class NFTablesMonitor: Sendable {
    /// How changes are noticed.
    enum Method: String, Sendable {
        case events = "netlink events"
        case generationPolling = "generation polling"
    }

    private struct State {
        var stopped = false
        var subscribed = false
    }

    let method: Method
    private let table: String
    private let eventSocket: NetfilterSocket?
    private let state = Mutex(State())
    private let onForeignChange: @Sendable (String) -> Void
    private let expectedGeneration: @Sendable () -> UInt32?
    private let pollInterval: Duration

    /// Opens the notification socket (or prepares polling when that is refused).
    ///
    /// - Parameters:
    ///   - onForeignChange: called on the monitor's thread with a short reason.
    ///   - expectedGeneration: the generation after the daemon's last commit, for polling.
    init(
        table: String, pollInterval: Duration = .seconds(1), forcePolling: Bool = false,
        expectedGeneration: @escaping @Sendable () -> UInt32?,
        onForeignChange: @escaping @Sendable (String) -> Void
    ) {
        self.table = table
        self.pollInterval = pollInterval
        self.expectedGeneration = expectedGeneration
        self.onForeignChange = onForeignChange
        // Large enough for other programs' bursts (fail2ban adding elements, a firewall reload);
        // an overflow is still handled, by restoring.
        let socket =
            forcePolling
            ? nil
            : try? NetfilterSocket(
                bound: true, timeout: timeval(tv_sec: 2, tv_usec: 0), receiveBuffer: 4 << 20, groups: [UInt32(NFNLGRP_NFTABLES.rawValue)])
        self.eventSocket = socket
        if socket != nil {
            method = .events
            state.withLock { $0.subscribed = true }
        } else {
            method = .generationPolling
        }
    }

    /// Runs the monitor on a thread of its own until `stop()`.
    func start() {
        let thread = Thread { [self] in
            if method == .events { eventLoop() } else { pollLoop() }
        }
        thread.name = "simplylock-nft-watch"
        thread.start()
    }

    /// Ends the monitor thread within a quarter of a second.
    func stop() {
        state.withLock { $0.stopped = true }
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    /// Stops or resumes receiving notifications, around the daemon's own commits.
    func setSubscribed(_ subscribed: Bool) {
        guard let eventSocket else { return }
        state.withLock { current in
            guard current.subscribed != subscribed else { return }
            var group = UInt32(NFNLGRP_NFTABLES.rawValue)
            let option = subscribed ? NETLINK_ADD_MEMBERSHIP : NETLINK_DROP_MEMBERSHIP
            if setsockopt(eventSocket.fd, SOL_NETLINK, option, &group, socklen_t(MemoryLayout<UInt32>.size)) == 0 {
                current.subscribed = subscribed
            }
        }
    }

    /// The current ruleset generation: a counter the kernel increments with every committed
    /// transaction, on any table. Cheap (one netlink round trip).
    static func currentGeneration() throws -> UInt32 {
        do throws(NetfilterSocket.Failure) {
            let socket = try NetfilterSocket(bound: false, timeout: timeval(tv_sec: 2, tv_usec: 0))
            let answer = try socket.request(
                subsystem: UInt16(NFNL_SUBSYS_NFTABLES), type: UInt16(NFT_MSG_GETGEN.rawValue), attributes: [], waiting: true)
            guard let answer, answer.nftablesType == NFT_MSG_NEWGEN.rawValue,
                let id = answer.attribute(UInt16(NFTA_GEN_ID.rawValue)).flatMap(bigEndian32)
            else { throw NetfilterSocket.Failure(step: "unexpected answer", code: EPROTO) }
            return id
        } catch {
            throw NFTablesError(message: "generation query failed: \(error)")
        }
    }

    /// A 32-bit nf_tables attribute value (network byte order).
    private static func bigEndian32(_ bytes: ArraySlice<UInt8>) -> UInt32? {
        guard bytes.count == 4 else { return nil }
        var value: UInt32 = 0
        for byte in bytes { value = value << 8 | UInt32(byte) }
        return value
    }

    /// `NFPROTO_INET` from linux/netfilter.h, whose includes clash with glibc's socket headers.
    private static let familyINet: UInt8 = 1

    private func eventLoop() {
        let ownPID = UInt32(getpid())
        var touched = false
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        guard let eventSocket else { return }
        while !isStopped {
            let messages: NetlinkMessages
            switch eventSocket.receive(within: 250, into: &buffer) {
            case .nothing: continue
            case .lost:
                // Notifications were lost; one of them may have been about this table.
                touched = false
                onForeignChange("notification queue overflowed")
                continue
            case .messages(let received): messages = received
            }
            for message in messages {
                guard message.subsystem == UInt8(NFNL_SUBSYS_NFTABLES) else { continue }
                if message.nftablesType == NFT_MSG_NEWGEN.rawValue {
                    let pid = message.attribute(UInt16(NFTA_GEN_PROC_PID.rawValue)).flatMap(Self.bigEndian32)
                    if touched && pid != ownPID {
                        let name =
                            message.attribute(UInt16(NFTA_GEN_PROC_NAME.rawValue))
                            .map { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) } ?? "?"
                        onForeignChange("changed by process \(pid.map(String.init) ?? "?") (\(name))")
                    }
                    touched = false
                } else if message.family == Self.familyINet,
                    let name = message.attribute(1),  // the table name is attribute 1 of every nf_tables object
                    String(decoding: name.prefix { $0 != 0 }, as: UTF8.self) == table
                {
                    touched = true
                }
            }
        }
    }

    private func pollLoop() {
        while !isStopped {
            Thread.sleep(forTimeInterval: pollInterval.seconds)
            guard !isStopped, let expected = expectedGeneration(),
                let current = try? Self.currentGeneration(), current != expected
            else { continue }
            onForeignChange("ruleset generation \(current) differs from \(expected) after the last commit")
        }
    }
}
