import LockCore
import Logging
import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A filtering DNS forwarder on loopback, UDP and TCP: names the current policy blocks are
/// answered locally (`A` 0.0.0.0, `AAAA` ::, any other type an empty answer, short TTL);
/// everything else goes to the upstream servers and their answers come back unchanged.
///
/// Upstream queries leave from a few UDP sockets per address family, each query with a fresh
/// random ID (so thousands can be in flight), carrying `SO_MARK` so that the nftables redirect
/// of port 53 lets them pass; a truncated answer is fetched again over TCP; a server that does
/// not answer in time is replaced by the next for this and later queries, and when every try
/// is used up the client gets SERVFAIL. Malformed queries get FORMERR; responses and runts
/// sent to it are dropped. No answer is ever made up for a name that is not blocked.
///
/// The policy and the server list are swapped atomically (`setPolicy`, `setUpstream`): a
/// query reads whichever is current when it arrives and never waits for a rebuild; the old
/// policy is freed as soon as the last query using it is done (microseconds later).
///
/// Everything runs on one event-loop thread of its own, so the daemon's other work never
/// delays a lookup and the forwarder's state needs no locks.
public final class DNSForwarder: Sendable {
    /// The mark the daemon's upstream DNS packets carry ("SL").
    public static let defaultMark: UInt32 = 0x534C

    /// `SO_MARK` from <asm-generic/socket.h> (not exported by every libc module).
    static let soMark: Int32 = 36

    /// What the forwarder's loop reads and other threads replace.
    final class Shared: Sendable {
        let policy: Mutex<DNSFilterPolicy>
        let servers: Mutex<[DNSUpstreamServer]>
        /// True while the machine's DNS may be redirected here: only then is a query's
        /// original destination looked up (queries sent to the forwarder itself pay nothing).
        let redirected = Atomic<Bool>(false)
        /// The names whose answered queries are counted for the site meter (`setMetered`).
        let metered = Mutex<DomainSuffixSet>(.empty)
        /// The local stub resolver's upstream servers, learnt from its redirected queries.
        let stubUpstreams: StubUpstreams
        /// Counts changes of the upstream servers, so the forwarder's loop empties its cache.
        let upstreamGeneration = Atomic<UInt64>(0)

        init(policy: DNSFilterPolicy, servers: [DNSUpstreamServer], stubUpstreams: StubUpstreams) {
            self.policy = Mutex(policy)
            self.servers = Mutex(servers)
            self.stubUpstreams = stubUpstreams
        }
    }

    private struct Running: Sendable {
        var group: MultiThreadedEventLoopGroup
        var engine: NIOLoopBound<DNSForwardingEngine>
        var channels: [any Channel]
        var port: UInt16
        var conntrackFailure: String?
    }

    private let settings: Settings
    private let shared: Shared
    private let onBlocked: (@Sendable (DNSBlockedQuery) -> Void)?
    private let logger: Logger
    private let running = Mutex<Running?>(nil)
    private let upstreamConfiguration: Mutex<ResolverConfiguration>

    /// Creates a forwarder; nothing listens until `start()`.
    ///
    /// - Parameters:
    ///   - upstream: where unblocked queries go; only its servers are used (timing comes from `settings`).
    ///   - policy: what to block at first.
    ///   - onBlocked: called on the forwarder's thread for every blocked answer; keep it short.
    ///   - stubUpstreams: where the local stub resolver's upstream servers are learnt.
    public init(
        settings: Settings = Settings(), upstream: ResolverConfiguration, policy: DNSFilterPolicy = .empty,
        onBlocked: (@Sendable (DNSBlockedQuery) -> Void)? = nil, stubUpstreams: StubUpstreams = StubUpstreams(),
        logger: Logger = Logger(label: "simplylock.dns-filter")
    ) {
        self.settings = settings
        self.shared = Shared(policy: policy, servers: upstream.servers.map(DNSUpstreamServer.init), stubUpstreams: stubUpstreams)
        self.upstreamConfiguration = Mutex(upstream)
        self.onBlocked = onBlocked
        self.logger = logger
    }

    /// The port it listens on, once started.
    public var port: UInt16? { running.withLock { $0?.port } }

    /// Why redirected queries cannot go to the server they were sent to (conntrack lookups are
    /// refused here); nil when they can, or before `start()`.
    public var originalDestinationProblem: String? { running.withLock { $0?.conntrackFailure } }

    /// True once started with conntrack lookups working: a redirected query goes to the server
    /// it was sent to, so a local stub resolver's own upstream queries never loop back.
    public var followsOriginalDestination: Bool { running.withLock { $0 != nil && $0?.conntrackFailure == nil } }

    /// The policy in force.
    public var policy: DNSFilterPolicy { shared.policy.withLock { $0 } }

    /// Puts `policy` in force for every query that arrives from now on.
    public func setPolicy(_ policy: DNSFilterPolicy) {
        // The old policy is released when `old` goes out of scope, outside the lock (freeing a
        // large one takes a moment), unless a query still holds it.
        let old = shared.policy.withLock { current -> DNSFilterPolicy in
            defer { current = policy }
            return current
        }
        _ = old
    }

    /// Counts, from now on, the queries answered from upstream for each of `names` (and every
    /// name under it) under the most specific of them, for the site meter (`takeMeterCounts`).
    /// Blocked answers are not counted: a blocked site is not in use.
    public func setMetered(_ names: DomainSuffixSet) { shared.metered.withLock { $0 = names } }

    /// The queries answered per metered name since the last call, emptied (nothing before
    /// `start()`).
    public func takeMeterCounts() async -> [String: Int] {
        guard let state = running.withLock({ $0 }) else { return [:] }
        return (try? await state.engine.eventLoop.submit { state.engine.value.takeMeterCounts() }.get()) ?? [:]
    }

    /// Says whether the nftables redirect may send the machine's DNS here (see `Shared.redirected`).
    public func setRedirected(_ redirected: Bool) { shared.redirected.store(redirected, ordering: .relaxed) }

    /// The upstream servers in use.
    public var upstream: ResolverConfiguration { upstreamConfiguration.withLock { $0 } }

    /// Replaces the upstream servers (after resolv.conf changed).
    public func setUpstream(_ configuration: ResolverConfiguration) {
        let servers = configuration.servers.map(DNSUpstreamServer.init)
        let changed = upstreamConfiguration.withLock { current in
            defer { current = configuration }
            return current.servers != configuration.servers
        }
        shared.servers.withLock { $0 = servers }
        if changed { shared.upstreamGeneration.wrappingAdd(1, ordering: .relaxed) }
    }

    /// Binds the upstream sockets and the listeners and starts answering. Call it from one
    /// task at a time (`DNSFilterEnforcer`, an actor, does); a second call returns the port.
    ///
    /// - Returns: the port it listens on (the one chosen when `settings.port` is 0).
    /// - Throws: `DNSForwarderError` naming the address that could not be bound or the socket
    ///   option that was refused; nothing stays open then.
    @discardableResult
    public func start() async throws -> UInt16 {
        if let port { return port }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let settings = self.settings
        let shared = self.shared
        let onBlocked = self.onBlocked
        let logger = self.logger
        let engine = try await loop.submit {
            NIOLoopBound(
                DNSForwardingEngine(
                    eventLoop: loop, settings: settings, shared: shared, onBlocked: onBlocked,
                    logger: logger), eventLoop: loop)
        }.get()
        var channels: [any Channel] = []
        do {
            channels += try await bindUpstream(loop: loop, engine: engine)
            let (listeners, port) = try await bindListeners(loop: loop, engine: engine)
            channels += listeners
            let conntrackFailure = try await loop.submit { engine.value.conntrackFailure }.get()
            if let conntrackFailure {
                logger.warning("redirected DNS queries go to the configured upstream servers", metadata: ["reason": "\(conntrackFailure)"])
            }
            running.withLock {
                $0 = Running(group: group, engine: engine, channels: channels, port: port, conntrackFailure: conntrackFailure)
            }
            logger.info(
                "DNS filter listening",
                metadata: [
                    "port": "\(port)", "addresses": "\(settings.listenAddresses.joined(separator: ","))",
                    "upstream": "\(upstream.servers.map(\.description).joined(separator: ","))",
                ])
            return port
        } catch {
            for channel in channels { try? await channel.close() }
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// Closes every socket and stops the thread; queries in flight get no answer.
    public func stop() async {
        guard
            let state = running.withLock({ current -> Running? in
                defer { current = nil }
                return current
            })
        else { return }
        for channel in state.channels { try? await channel.close() }
        try? await state.group.next().submit { state.engine.value.shutDown() }.get()
        try? await state.group.shutdownGracefully()
    }

    /// The counters so far (zero before `start()`).
    public func statistics() async -> DNSForwarderStatistics {
        guard let state = running.withLock({ $0 }) else { return DNSForwarderStatistics() }
        return (try? await state.engine.eventLoop.submit { state.engine.value.currentStatistics }.get()) ?? DNSForwarderStatistics()
    }

    // MARK: - Binding

    /// An upstream socket made here rather than by NIO, which opens sockets without close-on-exec:
    /// a marked socket inherited by a child process would carry the exemption out of the daemon
    /// (and be reported as borrowed).
    private static func upstreamSocket(ipv6: Bool, mark: UInt32?) throws -> Int32 {
        try markedSocket(type: SOCK_DGRAM, ipv6: ipv6, mark: mark) { fd in
            let any = try NIOCore.SocketAddress(ipAddress: ipv6 ? "::" : "0.0.0.0", port: 0)
            let bound = any.withSockAddr { bind(fd, $0, socklen_t($1)) }
            guard bound == 0 else { throw IOError(errnoCode: errno, reason: "bind") }
        }
    }

    /// A TCP socket to `server`, close-on-exec and marked from the start, its connect begun: NIO's
    /// `ClientBootstrap.connect` opens sockets without close-on-exec, and a child process spawned
    /// meanwhile would keep one carrying the exemption. NIO takes it as connected; its first
    /// write waits (EAGAIN) until the handshake is done, and a refused one ends the channel.
    static func upstreamStreamSocket(to server: NIOCore.SocketAddress, mark: UInt32?) throws -> Int32 {
        try markedSocket(type: SOCK_STREAM, ipv6: server.protocol == .inet6, mark: mark) { fd in
            let connected = server.withSockAddr { connect(fd, $0, socklen_t($1)) }
            guard connected == 0 || errno == EINPROGRESS else { throw IOError(errnoCode: errno, reason: "connect") }
        }
    }

    /// A non-blocking, close-on-exec socket carrying `mark` (when given), then `prepare`d; closed
    /// again if any step fails.
    private static func markedSocket(
        type: __socket_type, ipv6: Bool, mark: UInt32?, prepare: (Int32) throws -> Void
    ) throws -> Int32 {
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(type.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw IOError(errnoCode: errno, reason: "socket") }
        do {
            if let mark {
                var value = Int32(bitPattern: mark)
                guard setsockopt(fd, SOL_SOCKET, Self.soMark, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
                    throw IOError(errnoCode: errno, reason: "setsockopt(SO_MARK)")
                }
            }
            try prepare(fd)
        } catch {
            close(fd)
            throw error
        }
        return fd
    }

    /// Sets the receive buffer once the socket exists: SO_RCVBUFFORCE where permitted, else
    /// SO_RCVBUF (which the kernel caps at rmem_max).
    private static func enlargeReceiveBuffer(_ channel: any Channel, to size: Int) -> EventLoopFuture<Void> {
        guard size > 0 else { return channel.eventLoop.makeSucceededVoidFuture() }
        let value = SocketOptionValue(clamping: size)
        return channel.setOption(.socket(SocketOptionLevel(SOL_SOCKET), SocketOptionName(SO_RCVBUFFORCE)), value: value)
            .flatMapError { _ in channel.setOption(.socket(SocketOptionLevel(SOL_SOCKET), SocketOptionName(SO_RCVBUF)), value: value) }
            .recover { _ in }
    }

    private func bindUpstream(loop: any EventLoop, engine: NIOLoopBound<DNSForwardingEngine>) async throws -> [any Channel] {
        var channels: [any Channel] = []
        for (family, any) in [(0, "0.0.0.0"), (1, "::")] {
            for socket in 0..<settings.upstreamSockets {
                let bootstrap = DatagramBootstrap(group: loop)
                    .channelOption(.datagramVectorReadMessageCount, value: 16)
                    .channelOption(
                        .recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 16 * DNSForwardingEngine.upstreamPayloadLimit)
                    )
                    .channelInitializer { [settings] channel in
                        Self.enlargeReceiveBuffer(channel, to: settings.receiveBufferSize).flatMapThrowing {
                            try channel.pipeline.syncOperations.addHandler(
                                DNSUpstreamDatagramHandler(engine: engine.value, family: family, socket: socket))
                        }
                    }
                do {
                    let channel = try await bootstrap.withBoundSocket(Self.upstreamSocket(ipv6: family == 1, mark: settings.mark)).get()
                    channels.append(channel)
                    try await loop.submit { engine.value.upstreamChannels[family].append(channel) }.get()
                } catch let error as IOError where family == 1 && [EAFNOSUPPORT, EADDRNOTAVAIL].contains(error.errnoCode) {
                    logger.warning("no IPv6 upstream sockets: IPv6 is not available", metadata: ["error": "\(error)"])
                    break
                } catch let error as IOError where error.errnoCode == EPERM && settings.mark != nil {
                    for channel in channels { try? await channel.close() }
                    throw DNSForwarderError(
                        message: "cannot set SO_MARK \(settings.mark!) on the upstream DNS sockets: "
                            + "it needs CAP_NET_ADMIN (\(error))")
                } catch {
                    for channel in channels { try? await channel.close() }
                    throw DNSForwarderError(message: "cannot open an upstream DNS socket on \(any): \(error)")
                }
            }
        }
        return channels
    }

    private func bindListeners(loop: any EventLoop, engine: NIOLoopBound<DNSForwardingEngine>) async throws
        -> (channels: [any Channel], port: UInt16)
    {
        guard !settings.listenAddresses.isEmpty else { throw DNSForwarderError(message: "no listen address configured") }
        // With port 0 the first socket picks a port and the others must get the same one; if
        // another program holds it on one of them, start over with a new port.
        for _ in 0..<(settings.port == 0 ? 16 : 1) {
            var channels: [any Channel] = []
            var port = Int(settings.port)
            var retry = false
            for address in settings.listenAddresses {
                do {
                    let udp = try await bindDatagram(loop: loop, engine: engine, host: address, port: port)
                    channels.append(udp)
                    if port == 0 { port = udp.localAddress?.port ?? 0 }
                    channels.append(try await bindStream(loop: loop, engine: engine, host: address, port: port))
                } catch let error as IOError where address.contains(":") && [EAFNOSUPPORT, EADDRNOTAVAIL].contains(error.errnoCode) {
                    logger.warning("not listening on \(address): IPv6 is not available here", metadata: ["error": "\(error)"])
                } catch let error as IOError where error.errnoCode == EADDRINUSE && settings.port == 0 && !channels.isEmpty {
                    retry = true
                    break
                } catch {
                    for channel in channels { try? await channel.close() }
                    throw DNSForwarderError(message: "cannot listen on \(address) port \(port): \(error)")
                }
            }
            if retry {
                for channel in channels { try? await channel.close() }
                continue
            }
            guard !channels.isEmpty else { throw DNSForwarderError(message: "none of the listen addresses could be bound") }
            return (channels, UInt16(port))
        }
        throw DNSForwarderError(message: "could not find a port free on every listen address")
    }

    private func bindDatagram(loop: any EventLoop, engine: NIOLoopBound<DNSForwardingEngine>, host: String, port: Int) async throws
        -> any Channel
    {
        try await DatagramBootstrap(group: loop)
            .channelOption(.datagramVectorReadMessageCount, value: 16)
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 16 * 4096))
            .channelInitializer { [settings] channel in
                Self.enlargeReceiveBuffer(channel, to: settings.receiveBufferSize).flatMapThrowing {
                    try channel.pipeline.syncOperations.addHandler(DNSClientDatagramHandler(engine: engine.value))
                }
            }
            .bind(host: host, port: port).get()
    }

    private func bindStream(loop: any EventLoop, engine: NIOLoopBound<DNSForwardingEngine>, host: String, port: Int) async throws
        -> any Channel
    {
        let idle = TimeAmount(settings.tcpIdleTimeout)
        return try await ServerBootstrap(group: loop)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(IdleStateHandler(allTimeout: idle))
                    try sync.addHandler(ByteToMessageHandler(DNSFrameDecoder()))
                    try sync.addHandler(DNSClientStreamHandler(engine: engine.value))
                }
            }
            .bind(host: host, port: port).get()
    }
}
