import Foundation
import Glibc
import LockProtocol
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// Serves the HTTP/1.1 + JSON control API on the Unix socket.
///
/// Takes a listening socket inherited from systemd when there is one, and binds its own
/// otherwise (replacing a stale socket file safely).
public final class ControlServer: Service {
    /// Where to listen.
    public enum Listener: Sendable {
        /// Bind a new socket at this path.
        case path(String)
        /// Use an already bound and listening socket (socket activation).
        case inherited(fd: Int32)
    }

    private let listener: Listener
    private let router: APIRouter
    private let logger: Logger
    private let ready: @Sendable () -> Void

    init(listener: Listener, router: APIRouter, logger: Logger, ready: @escaping @Sendable () -> Void = {}) {
        self.listener = listener
        self.router = router
        self.logger = logger
        self.ready = ready
    }

    typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    public func run() async throws {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 128)
        let initializer: @Sendable (any Channel) -> EventLoopFuture<Connection> = { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: false)
                try channel.pipeline.syncOperations.addHandler(MalformedRequestHandler())
                return try Connection(wrappingChannelSynchronously: channel)
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
        ready()
        defer { if case .path(let path) = listener { unlink(path) } }
        do {
            try await cancelWhenGracefulShutdown {
                try await withThrowingDiscardingTaskGroup { group in
                    try await server.executeThenClose { connections in
                        for try await connection in connections {
                            group.addTask { await self.serve(connection) }
                        }
                    }
                }
            }
        } catch is CancellationError {
            // Graceful shutdown: open connections are cut, which is what stopping means.
        }
    }

    private func serve(_ connection: Connection) async {
        let peer: PeerCredentials
        do { peer = try await PeerCredentials.read(from: connection.channel) } catch {
            // Unknown peers may read but not change anything.
            peer = PeerCredentials(pid: 0, uid: UInt32.max, gid: UInt32.max)
        }
        do {
            try await connection.executeThenClose { inbound, outbound in
                var head: HTTPRequestHead?
                var body: [UInt8] = []
                var tooLarge = false
                var closing = false
                for try await part in inbound {
                    if closing { continue }
                    switch part {
                    case .head(let requestHead):
                        head = requestHead
                        body.removeAll(keepingCapacity: true)
                        tooLarge = false
                    case .body(let buffer):
                        if body.count + buffer.readableBytes > API.maxBodyBytes { tooLarge = true } else {
                            body += buffer.readableBytesView
                        }
                    case .end:
                        guard let requestHead = head else { continue }
                        head = nil
                        if tooLarge {
                            let error = APIError(.tooLarge, "request body larger than \(API.maxBodyBytes) bytes")
                            try await write(APIRouter.error(error), keepAlive: false, to: outbound, channel: connection.channel)
                            return
                        }
                        let (path, query) = Self.split(requestHead.uri)
                        let request = APIRequest(method: requestHead.method, path: path, query: query, body: body, peer: peer)
                        logger.debug("request", metadata: ["method": "\(requestHead.method)", "path": "\(path)", "peer": "\(peer)"])
                        let response = await router.handle(request)
                        let keepAlive = requestHead.isKeepAlive
                        let streaming = try await write(response, keepAlive: keepAlive, to: outbound, channel: connection.channel)
                        if streaming { return }
                        if !keepAlive {
                            // Closing now could cut a large answer still in the socket buffer
                            // (NIO drops unflushed writes on close). Half-close instead: the
                            // client reads to the end and hangs up, which ends this loop.
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

    /// Writes a response; returns true when it was an event stream (which ends the connection).
    @discardableResult
    private func write(_ response: APIResponse, keepAlive: Bool, to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>,
                       channel: any Channel) async throws -> Bool {
        switch response {
        case .json(let status, let body):
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "application/json")
            headers.add(name: "Content-Length", value: "\(body.count)")
            headers.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
            try await outbound.write(.head(HTTPResponseHead(version: .http1_1, status: .init(statusCode: status), headers: headers)))
            try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body))))
            try await outbound.write(.end(nil))
            return false
        case .events(let stream):
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "application/x-ndjson")
            headers.add(name: "Cache-Control", value: "no-cache")
            try await outbound.write(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers)))
            let encoder = API.makeEncoder()
            let hello = Event(type: .hello, at: Date(), message: "subscribed to simplylockd events")
            try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: Array(try encoder.encode(hello)) + [10]))))
            // Stream until the client goes away (the channel closes) or the daemon stops.
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await event in stream {
                        guard let line = try? encoder.encode(event) else { continue }
                        do { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: Array(line) + [10])))) } catch { return }
                    }
                }
                group.addTask { try? await channel.closeFuture.get() }
                await group.next()
                group.cancelAll()
            }
            try? await outbound.write(.end(nil))
            return true
        }
    }

    static func split(_ uri: String) -> (String, [String: String]) {
        guard let mark = uri.firstIndex(of: "?") else { return (uri, [:]) }
        var query: [String: String] = [:]
        for pair in uri[uri.index(after: mark)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            query[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return (String(uri[..<mark]), query)
    }
}
