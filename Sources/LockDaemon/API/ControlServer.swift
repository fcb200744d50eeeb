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
                group.addTask {
                    try await withThrowingDiscardingTaskGroup { connectionGroup in
                        try await server.executeThenClose { connections in
                            for try await connection in connections {
                                connectionGroup.addTask { await self.serve(connection) }
                            }
                        }
                    }
                }
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
                let parts = InboundParts(inbound.makeAsyncIterator())
                var head: HTTPRequestHead?
                var body: [UInt8] = []
                var limit = 0
                // Once the last answer is written, the writing half is closed and the rest of
                // the input is read and dropped until the client hangs up: closing at once
                // could cut an answer still waiting in NIO's buffers.
                var closing = false
                while let part = try await parts.next() {
                    if closing { continue }
                    switch part {
                    case .head(let requestHead):
                        switch router.admit(methodName: requestHead.method.rawValue, uri: requestHead.uri, peer: peer) {
                        case .reject(let response):
                            // Answered from the head alone; the body is never kept.
                            try await write(response, for: requestHead, keepAlive: false, to: outbound)
                            outbound.finish()
                            closing = true
                        case .accept(let maxBody):
                            head = requestHead
                            body.removeAll(keepingCapacity: false)
                            limit = maxBody
                        case .stream(let maxBody):
                            // The handler reads the body as it arrives; while it does, each piece
                            // gives the sender more time (a large upload outlasts the deadline).
                            channel.eventLoop.execute {
                                (try? channel.pipeline.syncOperations.handler(type: RequestDeadlineHandler.self))?.extendWhileUploading()
                            }
                            let stream = RequestBodyStream(limit: maxBody) { try await parts.nextBody() }
                            let request = APIRequest(
                                methodName: requestHead.method.rawValue, uri: requestHead.uri, peer: peer,
                                bodyStream: stream)
                            logger.debug(
                                "streamed request",
                                metadata: [
                                    "method": "\(requestHead.method)", "uri": "\(requestHead.uri)",
                                    "peer": "\(peer)",
                                ])
                            let response = await router.handle(request)
                            // What the handler left unread is not wanted: answer, then drop the
                            // rest until the client hangs up.
                            try await write(response, for: requestHead, keepAlive: false, to: outbound)
                            outbound.finish()
                            closing = true
                        }
                    case .body(let buffer):
                        guard let requestHead = head else { continue }
                        guard body.count + buffer.readableBytes <= limit else {
                            let error = APIError(.tooLarge, "request body larger than \(limit) bytes")
                            try await write(Router.error(error), for: requestHead, keepAlive: false, to: outbound)
                            outbound.finish()
                            head = nil
                            body = []
                            closing = true
                            continue
                        }
                        body += buffer.readableBytesView
                    case .end:
                        guard let requestHead = head else { continue }
                        head = nil
                        let request = APIRequest(methodName: requestHead.method.rawValue, uri: requestHead.uri, body: body, peer: peer)
                        body = []
                        logger.debug(
                            "request", metadata: ["method": "\(requestHead.method)", "uri": "\(requestHead.uri)", "peer": "\(peer)"])
                        let response = await router.handle(request)
                        if case .events(let stream) = response {
                            try await streamEvents(stream, for: requestHead, peerGone: connection.peerGone, to: outbound)
                            return
                        }
                        let keepAlive = requestHead.isKeepAlive
                        try await write(response, for: requestHead, keepAlive: keepAlive, to: outbound)
                        if !keepAlive {
                            outbound.finish()
                            closing = true
                        }
                    }
                }
            }
        } catch {
            logger.debug("connection ended", metadata: ["error": "\(error)", "peer": "\(peer)"])
        }
    }

    /// Answers 503 to a connection over the limits, without reading its request.
    private func refuse(_ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, _ refusal: ConnectionRefusal) async {
        let error = APIError(.unavailable, refusal.message)
        try? await connection.executeThenClose { _, outbound in
            let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/")
            try await write(Router.error(error), for: head, keepAlive: false, to: outbound)
            outbound.finish()
        }
    }

    private func write(
        _ response: APIResponse, for request: HTTPRequestHead, keepAlive: Bool,
        to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async throws {
        guard case .json(let status, let body, let extra) = response else { return }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: "\(body.count)")
        headers.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        for (name, value) in extra { headers.add(name: name, value: value) }
        let version: HTTPVersion = request.version.minor == 0 ? .http1_0 : .http1_1
        try await outbound.write(.head(HTTPResponseHead(version: version, status: .init(statusCode: status), headers: headers)))
        // HEAD gets the headers GET would, and no body.
        if request.method != .HEAD { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
        try await outbound.write(.end(nil))
    }

    /// Streams events until the client goes away or the daemon stops (the bus then sends a
    /// last event and ends every stream).
    private func streamEvents(
        _ stream: AsyncStream<DaemonEvent>, for request: HTTPRequestHead, peerGone: AsyncStream<Void>,
        to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async throws {
        openEventStreams.add(1, ordering: .relaxed)
        defer { openEventStreams.subtract(1, ordering: .relaxed) }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/x-ndjson")
        headers.add(name: "Cache-Control", value: "no-cache")
        headers.add(name: "Connection", value: "close")
        try await outbound.write(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers)))
        let encoder = API.makeEncoder()
        let hello = Event(type: .hello, at: Date(), message: "subscribed to simplylockd events")
        try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: Array(try encoder.encode(hello)) + [10]))))
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in stream {
                    guard let line = try? encoder.encode(Event(event)) else { continue }
                    do { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: Array(line) + [10])))) } catch { return }
                }
            }
            group.addTask { for await _ in peerGone {} }
            await group.next()
            group.cancelAll()
        }
        try? await outbound.write(.end(nil))
        outbound.finish()
    }
}

/// The parts of one connection's requests, shared by the server's loop and the body of a
/// streamed request (which the handler reads from the same place, in the same task).
private final class InboundParts {
    private var iterator: NIOAsyncChannelInboundStream<HTTPServerRequestPart>.AsyncIterator

    init(_ iterator: NIOAsyncChannelInboundStream<HTTPServerRequestPart>.AsyncIterator) { self.iterator = iterator }

    func next() async throws -> HTTPServerRequestPart? { try await iterator.next() }

    /// The next piece of the current request's body; nil at its end.
    func nextBody() async throws -> [UInt8]? {
        while let part = try await iterator.next() {
            switch part {
            case .body(let buffer):
                if buffer.readableBytes > 0 { return Array(buffer.readableBytesView) }
            case .end: return nil
            case .head: throw APIError(.badRequest, "a new request began before the body ended")
            }
        }
        throw APIError(.badRequest, "the connection closed before the body ended")
    }
}
