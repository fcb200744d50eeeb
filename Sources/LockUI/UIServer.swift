import Foundation
import LockServing
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// The UI's HTTP server on loopback (127.0.0.1 and ::1, one port): the gate decides on every
/// request, then a static file is served or the request is relayed to the daemon's socket.
public final class UIServer: Service {
    typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>
    typealias Listener = NIOAsyncChannel<Connection, Never>

    /// The bound listeners, before serving: the port is known (and printed) first.
    public struct Listening: Sendable {
        let listeners: [Listener]
        /// The port both addresses listen on.
        public let port: Int
        /// Why ::1 is not served, when it is not (no IPv6 on loopback, the port taken there).
        public let ipv6Problem: String?
        /// The connections it takes.
        let limits: ConnectionLimits
    }

    /// Largest request body relayed (a profile or schedule edit is a few hundred bytes).
    static let maxBodyBytes = 1 << 20
    /// Any local user can connect to loopback, and the server cannot tell them apart: it holds
    /// this many connections at most (a browser keeps about six per server, plus the event
    /// stream of each open page), refusing more at once, and cuts a connection that does not
    /// send a complete request in time, as the daemon's control socket does.
    public static let defaultLimits = ConnectionLimits(total: 64, requestTimeout: .seconds(10))

    private let listening: Listening
    private let gate: Gate
    private let assets: Assets
    private let relay: DaemonRelay
    private let icons: AppIcons
    private let logger: Logger
    private let counter: ConnectionCounter

    public init(listening: Listening, gate: Gate, assets: Assets, socketPath: String, logger: Logger) {
        self.counter = ConnectionCounter(limits: listening.limits)
        self.listening = listening
        self.gate = gate
        self.assets = assets
        self.relay = DaemonRelay(socketPath: socketPath)
        self.icons = AppIcons(socketPath: socketPath)
        self.logger = logger
    }

    /// Binds 127.0.0.1 on `port` (0: a free one), then ::1 on the same port.
    public static func listen(port: Int, limits: ConnectionLimits = defaultLimits) async throws -> Listening {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        let initializer: @Sendable (any Channel) -> EventLoopFuture<Connection> = { channel in
            channel.eventLoop.makeCompletedFuture {
                // Requests are answered one at a time in order anyway; without the pipelining
                // helper a connection over the limits can be answered before it sent anything.
                try channel.pipeline.syncOperations.configureHTTPServerPipeline(withPipeliningAssistance: false, withErrorHandling: true)
                try channel.pipeline.syncOperations.addHandler(RequestDeadlineHandler(timeout: limits.requestTimeout))
                return try Connection(wrappingChannelSynchronously: channel)
            }
        }
        let ipv4 = try await bootstrap.bind(host: "127.0.0.1", port: port, childChannelInitializer: initializer)
        let bound = ipv4.channel.localAddress?.port ?? port
        do {
            let ipv6 = try await bootstrap.bind(to: try SocketAddress(ipAddress: "::1", port: bound), childChannelInitializer: initializer)
            return Listening(listeners: [ipv4, ipv6], port: bound, ipv6Problem: nil, limits: limits)
        } catch {
            return Listening(listeners: [ipv4], port: bound, ipv6Problem: "\(error)", limits: limits)
        }
    }

    public func run() async throws {
        do { try await serve() } catch is CancellationError {
            // Shutting down: the listeners are closed and open connections cut, which is what stopping means.
        }
    }

    private func serve() async throws {
        try await withThrowingDiscardingTaskGroup { group in
            for listener in listening.listeners {
                group.addTask { try await AcceptLoop.run(listener) { await self.admit($0) } }
            }
            group.addTask {
                try? await gracefulShutdown()
                for listener in self.listening.listeners { try? await listener.channel.close() }
                // Event streams relayed to open pages would keep their connections (and the
                // task group) alive: shutting down means cutting them.
                throw CancellationError()
            }
        }
    }

    /// Serves a connection within the limits; one over them is answered 503 at once, unread.
    private func admit(_ connection: Connection) async {
        if counter.acquire(uid: 0, caller: .reader) != nil {
            logger.info("connection refused", metadata: ["open": "\(counter.open)"])
            try? await connection.executeThenClose { _, outbound in
                try await Responses.error(
                    status: 503, reason: "simplylock-ui has as many connections as it takes (\(listening.limits.total)); try again later",
                    json: false, to: outbound)
            }
            return
        }
        defer { counter.release(uid: 0) }
        await serve(connection)
    }

    private func serve(_ connection: Connection) async {
        let channel = connection.channel
        do {
            try await connection.executeThenClose { inbound, outbound in
                var head: HTTPRequestHead?
                var body = ByteBuffer()
                var tooLarge = false
                for try await part in inbound {
                    switch part {
                    case .head(let next):
                        head = next
                        body.clear()
                        tooLarge = false
                    case .body(var chunk):
                        if body.readableBytes + chunk.readableBytes > Self.maxBodyBytes {
                            tooLarge = true
                        } else {
                            body.writeBuffer(&chunk)
                        }
                    case .end:
                        guard let request = head else { continue }
                        head = nil
                        try await respond(to: request, body: body, tooLarge: tooLarge, outbound: outbound, channel: channel)
                        // NIO leaves closing to the handler: a client that asked for it (or HTTP/1.0) gets it.
                        if !request.isKeepAlive { return }
                    }
                }
            }
        } catch {
            logger.debug("connection ended", metadata: ["error": "\(error)"])
        }
    }

    private func respond(
        to head: HTTPRequestHead, body: ByteBuffer, tooLarge: Bool, outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>,
        channel: any Channel
    ) async throws {
        let (path, query) = Self.split(head.uri)
        let method = head.method.rawValue
        let decision = gate.decide(method: method, path: path, query: query) { head.headers[canonicalForm: $0].map(String.init) }
        let isAPI = path.hasPrefix("/v1/")
        switch decision {
        case .refuse(let status, let reason):
            logger.info("refused", metadata: ["method": "\(method)", "path": "\(path)", "reason": "\(reason)"])
            try await Responses.error(status: status, reason: reason, json: isAPI, to: outbound)
        case .startSession(let value):
            var headers = Responses.securityHeaders()
            headers.add(name: "Location", value: "/")
            headers.add(name: "Set-Cookie", value: gate.setCookie(value))
            headers.add(name: "Content-Length", value: "0")
            try await outbound.write(.head(HTTPResponseHead(version: .http1_1, status: .seeOther, headers: headers)))
            try await outbound.write(.end(nil))
        case .admit where tooLarge:
            try await Responses.error(status: 413, reason: "request body over \(Self.maxBodyBytes) bytes", json: isAPI, to: outbound)
        case .admit where path == "/v1/events":
            // An event stream ends only when the page goes away: the relay, and its connection
            // to the daemon, end with it.
            let relay = self.relay
            let stream = Task { try await relay.forward(head, body: body, to: outbound) }
            channel.closeFuture.whenComplete { _ in stream.cancel() }
            try await stream.value
        case .admit where isAPI:
            try await relay.forward(head, body: body, to: outbound)
        case .admit where path.hasPrefix("/icons/app/") && (method == "GET" || method == "HEAD"):
            let id = String(path.dropFirst("/icons/app/".count)).removingPercentEncoding ?? ""
            guard let icon = await icons.icon(for: id) else {
                return try await Responses.error(status: 404, reason: "no icon for the app \(id)", json: false, to: outbound)
            }
            try await Responses.file(icon, headOnly: method == "HEAD", to: outbound)
        case .admit:
            guard method == "GET" || method == "HEAD" else {
                return try await Responses.error(
                    status: 405, reason: "\(method) \(path): only GET serves the UI's files", json: false, to: outbound)
            }
            guard let file = assets.file(for: path) else {
                return try await Responses.error(status: 404, reason: "\(path): no such file", json: false, to: outbound)
            }
            try await Responses.file(file, headOnly: method == "HEAD", to: outbound)
        }
    }

    /// The path and the query of a request target (`/?token=x` → `/`, `token=x`).
    static func split(_ uri: String) -> (String, String?) {
        guard let mark = uri.firstIndex(of: "?") else { return (uri, nil) }
        return (String(uri[..<mark]), String(uri[uri.index(after: mark)...]))
    }
}
