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
    private let eventSocket: Int32
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
        let fd = forcePolling ? -1 : Self.openEventSocket()
        self.eventSocket = fd
        if fd >= 0 {
            method = .events
            state.withLock { $0.subscribed = true }
        } else {
            method = .generationPolling
        }
    }

    deinit {
        if eventSocket >= 0 { close(eventSocket) }
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
        guard method == .events else { return }
        state.withLock { current in
            guard current.subscribed != subscribed else { return }
            var group = UInt32(NFNLGRP_NFTABLES.rawValue)
            let option = subscribed ? NETLINK_ADD_MEMBERSHIP : NETLINK_DROP_MEMBERSHIP
            if setsockopt(eventSocket, SOL_NETLINK, option, &group, socklen_t(MemoryLayout<UInt32>.size)) == 0 {
                current.subscribed = subscribed
            }
        }
    }

    /// The current ruleset generation: a counter the kernel increments with every committed
    /// transaction, on any table. Cheap (one netlink round trip).
    static func currentGeneration() throws -> UInt32 {
        let fd = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue | SOCK_CLOEXEC.rawValue), NETLINK_NETFILTER)
        guard fd >= 0 else { throw NFTablesError(message: "netlink socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))

        let sequence = UInt32.random(in: 1 ... .max)
        var request = [UInt8](repeating: 0, count: 20)
        request.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: UInt32(20), toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(
                of: UInt16((UInt32(NFNL_SUBSYS_NFTABLES) << 8) | NFT_MSG_GETGEN.rawValue),
                toByteOffset: 4, as: UInt16.self)
            raw.storeBytes(of: UInt16(NLM_F_REQUEST), toByteOffset: 6, as: UInt16.self)
            raw.storeBytes(of: sequence, toByteOffset: 8, as: UInt32.self)
            raw[16] = UInt8(AF_UNSPEC)
            raw[17] = UInt8(NFNETLINK_V0)
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
        guard sent == request.count else { throw NFTablesError(message: "netlink send: \(String(cString: strerror(errno)))") }

        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw NFTablesError(message: "netlink receive: \(String(cString: strerror(errno)))") }
            for message in NetlinkMessages(bytes: buffer[0..<count]) where message.sequence == sequence {
                if message.type == UInt16(NLMSG_ERROR) {
                    let code =
                        message.payload.count >= 4
                        ? message.payload.withUnsafeBytes { $0.loadUnaligned(as: Int32.self) } : -1
                    throw NFTablesError(message: "generation query failed: \(String(cString: strerror(-code)))")
                }
                if message.nftablesType == NFT_MSG_NEWGEN.rawValue,
                    let id = message.attribute(UInt16(NFTA_GEN_ID.rawValue)).flatMap(bigEndian32)
                {
                    return id
                }
            }
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

    private static func openEventSocket() -> Int32 {
        let fd = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue | SOCK_CLOEXEC.rawValue), NETLINK_NETFILTER)
        guard fd >= 0 else { return -1 }
        // Large enough for other programs' bursts (fail2ban adding elements, a firewall reload);
        // an overflow is still handled, by restoring.
        var size: Int32 = 4 << 20
        if setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size)) != 0 {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var local = sockaddr_nl()
        local.nl_family = sa_family_t(AF_NETLINK)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_nl>.size)) }
        }
        var group = UInt32(NFNLGRP_NFTABLES.rawValue)
        guard bound == 0,
            setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group, socklen_t(MemoryLayout<UInt32>.size)) == 0
        else {
            close(fd)
            return -1
        }
        return fd
    }

    private func eventLoop() {
        let ownPID = UInt32(getpid())
        var touched = false
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while !isStopped {
            var entry = pollfd(fd: eventSocket, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 250) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(eventSocket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count < 0 {
                if errno == ENOBUFS {
                    // Notifications were lost; one of them may have been about this table.
                    touched = false
                    onForeignChange("notification queue overflowed")
                }
                continue
            }
            for message in NetlinkMessages(bytes: buffer[0..<count]) {
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
