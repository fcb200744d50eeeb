import Foundation
import Glibc
import LockProtocol
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle
import Synchronization

/// Serves the HTTP/1.1 + JSON control API on the Unix socket.
///
/// Takes a listening socket inherited from systemd when there is one, and binds its own
/// otherwise (replacing a stale socket file safely). Every connection is admitted against the
/// connection limits, every request from its head before its body is read, and idle or slow
/// connections are cut, so that no client can starve enforcement of descriptors or memory.
final class ControlServer: Service {
    /// Where to listen.
    enum Listener: Sendable {
        /// Bind a new socket at this path.
        case path(String)
        /// Use an already bound and listening socket (socket activation).
        case inherited(fd: Int32)
    }

    private let listener: Listener
    private let router: Router
    private let events: EventBus
    private let limits: ConnectionLimits
    private let counter: ConnectionCounter
    private let refusals: RefusalLog
    private let logger: Logger
    private let ready: @Sendable () async -> Void
    /// Event streams still writing: at shutdown the bus ends them, and each writes its last
    /// event before the connections are cut.
    private let openEventStreams = Atomic(0)
    /// How long shutdown waits for event streams to deliver their last event: a client that
    /// does not read cannot hold the daemon up longer.
    static let lastEventGrace: Duration = .seconds(1)

    init(
        listener: Listener, router: Router, events: EventBus, limits: ConnectionLimits, logger: Logger,
        ready: @escaping @Sendable () async -> Void = {}
    ) {
        self.listener = listener
        self.router = router
        self.events = events
        self.limits = limits
        self.counter = ConnectionCounter(limits: limits)
        self.refusals = RefusalLog(logger: logger)
        self.logger = logger
        self.ready = ready
    }

    private struct Connection: Sendable {
        let channel: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>
        let peerGone: AsyncStream<Void>
    }

    func run() async throws {
        let limits = self.limits
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 128)
            // A client that sends its request and then closes its writing half still gets its answer.
            .childChannelOption(.allowRemoteHalfClosure, value: true)
        let initializer: @Sendable (any Channel) -> EventLoopFuture<Connection> = { channel in
            channel.eventLoop.makeCompletedFuture {
                let (peerGone, continuation) = AsyncStream.makeStream(of: Void.self)
                try channel.pipeline.syncOperations.addHandler(PeerGoneHandler(continuation))
                try channel.pipeline.syncOperations.configureHTTPServerPipeline(withPipeliningAssistance: false, withErrorHandling: false)
                try channel.pipeline.syncOperations.addHandler(MalformedRequestHandler())
                try channel.pipeline.syncOperations.addHandler(RequestDeadlineHandler(timeout: limits.requestTimeout))
                let wrapped = try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
                    wrappingChannelSynchronously: channel,
                    configuration: .init(isOutboundHalfClosureEnabled: true))
                return Connection(channel: wrapped, peerGone: peerGone)
            }
        }
        let server: NIOAsyncChannel<Connection, Never>
        switch listener {
        case .path(let path):
            try ControlSocket.prepare(path)
            server = try await bootstrap.bind(unixDomainSocketPath: path, childChannelInitializer: initializer)
            // Reading is open to everyone; who may change things is decided per request from
            // the peer's credentials, not by file permissions.
            chmod(path, 0o666)
            logger.info("listening", metadata: ["socket": "\(path)"])
        case .inherited(let fd):
            server = try await bootstrap.bind(NIOBSDSocket.Handle(fd), childChannelInitializer: initializer)
            logger.info("listening on the socket passed by systemd", metadata: ["fd": "\(fd)"])
        }
        logger.info(
            "connection limits",
            metadata: [
                "total": "\(limits.total)", "perUser": "\(limits.perUser)", "authorisedReserve": "\(limits.authorisedReserve)",
                "rootReserve": "\(limits.rootReserve)", "newcomerReserve": "\(limits.newcomerReserve)",
                "requestTimeout": "\(limits.requestTimeout)",
            ])
        await ready()
        defer { if case .path(let path) = listener { unlink(path) } }
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await AcceptLoop.run(server) { await self.serve($0) } }
                group.addTask {
                    while true {
                        try await Task.sleep(for: RefusalLog.interval)
                        self.refusals.flush()
                    }
                }
                group.addTask {
                    // In this order: no new connection (a client that follows events, such as
                    // `lockctl notify`, reconnects as soon as its stream ends, and would only
                    // be told again that the daemon stops); every event stream ends with a last
                    // `daemon.stopping`; a second for them to deliver it (cutting connections at
                    // once raced that write, and a loaded machine lost it); then the cut.
                    try await gracefulShutdown()
                    try? await server.channel.close()
                    self.events.close(with: .stopping(at: Date()))
                    let deadline = ContinuousClock.now + Self.lastEventGrace
                    while self.openEventStreams.load(ordering: .relaxed) > 0, ContinuousClock.now < deadline {
                        try? await Task.sleep(for: .milliseconds(10))
                    }
                    throw CancellationError()
                }
                try await group.next()
                group.cancelAll()
            }
        } catch is CancellationError {
            // Graceful shutdown: open connections are cut, which is what stopping means.
        }
    }

    private func serve(_ connection: Connection) async {
        let channel = connection.channel.channel
        let peer = await PeerCredentials.read(from: channel)
        let caller: ConnectionCaller =
            peer.uid == 0 ? .root : router.authorizer.mayChange(peer) ? .authorised : .reader
        if let refusal = counter.acquire(uid: peer.uid, caller: caller) {
            refusals.record(uid: peer.uid, pid: peer.pid, refusal: refusal, open: counter.open)
            await refuse(connection.channel, refusal)
            return
        }
        defer { counter.release(uid: peer.uid) }
        do {
            try await connection.channel.executeThenClose { inbound, outbound in
                let reader = RequestReader(inbound, router: router, peer: peer) {
                    channel.eventLoop.execute {
                        (try? channel.pipeline.syncOperations.handler(type: RequestDeadlineHandler.self))?.extendWhileUploading()
                    }
                }
                let writer = ResponseWriter(outbound: outbound)
                answering: while let next = try await reader.next() {
                    switch next {
                    case .refuse(let head, let response):
                        try await writer.write(response, for: head, keepAlive: false)
                        break answering
                    case .answer(let head, let route, let request):
                        logger.debug(
                            "request", metadata: ["method": "\(head.method)", "uri": "\(head.uri)", "peer": "\(peer)"])
                        let response = await router.handle(request, on: route)
                        if case .events(let stream) = response {
                            openEventStreams.add(1, ordering: .relaxed)
                            defer { openEventStreams.subtract(1, ordering: .relaxed) }
                            try await writer.streamEvents(stream, peerGone: connection.peerGone)
                            writer.finish()
                            return
                        }
                        // What a streamed request's handler left unread is not wanted: answer, then close.
                        let keepAlive = head.isKeepAlive && !route.streamsBody
                        try await writer.write(response, for: head, keepAlive: keepAlive)
                        if !keepAlive { break answering }
                    }
                }
                writer.finish()
                try await reader.drain()
            }
        } catch {
            logger.debug("connection ended", metadata: ["error": "\(error)", "peer": "\(peer)"])
        }
    }

    /// Answers 503 to a connection over the limits, without reading its request.
    private func refuse(_ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, _ refusal: ConnectionRefusal) async {
        let error = APIError(.unavailable, refusal.message)
        try? await connection.executeThenClose { _, outbound in
            let writer = ResponseWriter(outbound: outbound)
            try await writer.write(Router.error(error), for: HTTPRequestHead(version: .http1_1, method: .GET, uri: "/"), keepAlive: false)
            writer.finish()
        }
    }
}
