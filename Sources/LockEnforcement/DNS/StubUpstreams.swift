import Dispatch
import LockCore
import NIOCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The upstream servers of the machine's local stub resolver (NetworkManager's dnsmasq on
/// 127.0.1.1, any resolver on loopback that resolv.conf names), learnt from the stub's own
/// queries as the DNS filter receives them redirected: their original destination is where the
/// stub forwards to.
///
/// A query to a destination not yet judged is judged on the forwarder's thread while its socket
/// is open (a sock_diag request and the stub's own descriptors: tens of microseconds). Finding
/// the stub's processes reads every process's descriptors (milliseconds, tens of them on a busy
/// desktop): done there only the first time; after that, when a socket is not held by the stub
/// processes last found and they are more than 2 s old, they are looked for again on a queue of
/// their own, and that query (or a later one) is judged with the result. So a flood of queries
/// to new destinations costs the forwarder's thread no /proc scan (`scripts/bench-stub-flood.sh`).
///
/// The firewall resolves blocked names through these, with the daemon's mark: asked through the
/// stub, its upstream query would be redirected to the filter, which answers a blocked name
/// with 0.0.0.0. A destination is learnt only from a query whose socket the stub's own process
/// holds (sock_diag finds the socket, `/proc/PID/fd` its holder): an ordinary user sending
/// queries to a server of their choosing must not choose where the firewall learns addresses.
public final class StubUpstreams: Sendable {
    typealias Server = ResolverConfiguration.Server

    private struct State: @unchecked Sendable {
        var stubs: [Server] = []
        var stubProcesses: [Int32] = []
        var processesFound: ContinuousClock.Instant?
        /// The stub's processes are being looked for on `checks`.
        var refreshing = false
        var learned: [Server: ContinuousClock.Instant] = [:]
        var refused: [Server: ContinuousClock.Instant] = [:]
        var lastCheck: ContinuousClock.Instant?
        var diagnostics: SocketDiagnostics?
        var problem: String?
    }

    private enum Verdict {
        case stub, other, unknown
    }

    /// How long a learnt server is used after the stub last sent it a query.
    public static let lifetime: Duration = .seconds(1800)
    /// How many learnt servers are kept (the most recently used).
    static let capacity = 8
    /// At most one check of a new destination per this interval (each costs a sock_diag request
    /// and reading the stub's descriptors).
    static let checkInterval: Duration = .milliseconds(20)
    /// A destination found not to be the stub's is not checked again for this long.
    static let refusalMemory: Duration = .seconds(60)

    private let state = Mutex(State())
    private let checks = DispatchQueue(label: "simplylock.stub-upstreams")
    private let learnings = Atomic<UInt64>(0)

    /// Grows whenever a server is learnt that was not known (the stub's upstream changed, as
    /// when the machine moves networks): the forwarder empties its answer cache then.
    var generation: UInt64 { learnings.load(ordering: .relaxed) }
    private let proc: String

    /// Creates an empty set; `proc` is where process descriptors are read (tests).
    public init(proc: String = "/proc") { self.proc = proc }

    /// The learnt servers in use, most recently used first.
    public func servers() -> [ResolverConfiguration.Server] {
        let now = ContinuousClock.now
        return state.withLock { state in
            state.learned.filter { now - $0.value < Self.lifetime }.sorted { $0.value > $1.value }.map(\.key)
        }
    }

    /// Why nothing could be learnt, if that is known (sock_diag refused).
    public var problem: String? { state.withLock { $0.problem } }

    /// The machine's resolvers on loopback (from resolv.conf): whose queries teach. Empty: none,
    /// nothing is learnt.
    public func setStubs(_ stubs: [ResolverConfiguration.Server]) {
        state.withLock { state in
            guard state.stubs != stubs else { return }
            state.stubs = stubs
            state.stubProcesses = []
            state.processesFound = nil
            state.refused = [:]
        }
    }

    /// True while a stub is in use and no server was learnt lately: blocked queries, which the
    /// filter answers itself, are then looked at too.
    var wantsSample: Bool {
        let now = ContinuousClock.now
        return state.withLock { state in
            !state.stubs.isEmpty && !state.learned.values.contains { now - $0 < .seconds(30) }
        }
    }

    /// A redirected query from `client` was sent to `original`: learnt when the stub sent it.
    func observe(original: NIOCore.SocketAddress, client: NIOCore.SocketAddress, proto: Int32) {
        guard let destination = Self.address(original), let source = Self.address(client) else { return }
        let server = Server(address: try! IPNetwork(family: destination.family, address: destination.address), port: destination.port)
        let now = ContinuousClock.now
        let refresh = state.withLock { state -> [Server]? in
            guard !state.stubs.isEmpty else { return nil }
            if state.learned[server] != nil {
                state.learned[server] = now
                return nil
            }
            if let refused = state.refused[server], now - refused < Self.refusalMemory { return nil }
            if let last = state.lastCheck, now - last < Self.checkInterval { return nil }
            state.lastCheck = now
            let (verdict, stale) = Self.sentByStub(&state, proto: proto, local: source, remote: destination, now: now, proc: proc)
            record(verdict, for: server, in: &state, at: now)
            guard stale, !state.refreshing else { return nil }
            state.refreshing = true
            return state.stubs
        }
        guard let stubs = refresh else { return }
        checks.async { [self] in
            // The query that asked is judged here too if its socket is still open (a TCP
            // connection waits for its answer); later ones are judged on the forwarder's thread.
            guard let diagnostics = try? SocketDiagnostics() else { return state.withLock { $0.refreshing = false } }
            let processes = Self.stubProcesses(stubs, diagnostics, proc: proc)
            let socket = diagnostics.find(proto: proto, local: source, remote: destination)
            let held = socket.map { socket in processes.contains { SocketHolders.holds($0, inode: socket.inode, proc: proc) } }
            let found = ContinuousClock.now
            state.withLock { state in
                state.refreshing = false
                guard state.stubs == stubs else { return }
                state.stubProcesses = processes
                state.processesFound = found
                if let held { record(held ? .stub : .other, for: server, in: &state, at: found) }
            }
        }
    }

    private func record(_ verdict: Verdict, for server: Server, in state: inout State, at now: ContinuousClock.Instant) {
        switch verdict {
        case .stub:
            if state.learned[server] == nil { learnings.wrappingAdd(1, ordering: .relaxed) }
            state.learned[server] = now
            if state.learned.count > Self.capacity, let oldest = state.learned.min(by: { $0.value < $1.value }) {
                state.learned[oldest.key] = nil
            }
        case .other:
            if state.refused.count >= 256 { state.refused = state.refused.filter { now - $0.value < Self.refusalMemory } }
            if state.refused.count < 256 { state.refused[server] = now }
        case .unknown:
            break
        }
    }

    /// Whether the stub's own process holds the socket that sent a query from `local` to
    /// `remote`, by the stub's processes as last found; unknown when the socket is gone, or
    /// when they were found too long ago to say no (`stale`: look for them again, off this thread).
    private static func sentByStub(
        _ state: inout State, proto: Int32, local: SocketAddress, remote: SocketAddress, now: ContinuousClock.Instant, proc: String
    ) -> (verdict: Verdict, stale: Bool) {
        if state.diagnostics == nil {
            do { state.diagnostics = try SocketDiagnostics() } catch {
                state.problem = "\(error)"
                return (.unknown, false)
            }
        }
        guard let diagnostics = state.diagnostics, let socket = diagnostics.find(proto: proto, local: local, remote: remote) else {
            return (.unknown, false)
        }
        if state.processesFound == nil {
            // The first time only (the daemon started, the stub changed): here, or a stub that
            // asks once over TCP would be judged only after its connection is gone.
            state.stubProcesses = stubProcesses(state.stubs, diagnostics, proc: proc)
            state.processesFound = now
        }
        if state.stubProcesses.contains(where: { SocketHolders.holds($0, inode: socket.inode, proc: proc) }) { return (.stub, false) }
        // Not the stub's as last found; a stub restarted since (a new process) is looked for again first.
        guard let found = state.processesFound, now - found < .seconds(2) else { return (.unknown, true) }
        return (.other, false)
    }

    /// The processes listening on the stubs' addresses (UDP and TCP).
    private static func stubProcesses(_ stubs: [Server], _ diagnostics: SocketDiagnostics, proc: String) -> [Int32] {
        var inodes: Set<UInt32> = []
        for stub in stubs {
            let local = SocketAddress(address: stub.address, port: stub.port)
            let any = SocketAddress(address: try! IPNetwork(family: stub.address.family, address: 0), port: 0)
            for proto in [Int32(IPPROTO_UDP), Int32(IPPROTO_TCP)] {
                if let socket = diagnostics.find(proto: proto, local: local, remote: any), socket.inode != 0 { inodes.insert(socket.inode) }
            }
        }
        return Array(Set(SocketHolders.holders(of: inodes, proc: proc).values.joined()))
    }

    private static func address(_ address: NIOCore.SocketAddress) -> SocketAddress? {
        var storage = sockaddr_storage()
        switch address {
        case .v4(let v4):
            withUnsafeMutableBytes(of: &storage) { bytes in withUnsafeBytes(of: v4.address) { bytes.copyMemory(from: $0) } }
        case .v6(let v6):
            withUnsafeMutableBytes(of: &storage) { bytes in withUnsafeBytes(of: v6.address) { bytes.copyMemory(from: $0) } }
        default:
            return nil
        }
        return SocketAddress(storage: storage)
    }
}
