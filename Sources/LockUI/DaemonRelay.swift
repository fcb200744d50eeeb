import NIOCore
import NIOHTTP1
import NIOPosix

/// Relays one API request to the daemon's Unix socket and its answer back, part by part (an
/// event stream flows as the daemon writes it). The UI server runs as the user, so the daemon
/// sees the user's credentials on the socket and decides what they may change, as for lockctl.
struct DaemonRelay: Sendable {
    let socketPath: String

    /// Request headers the daemon is given; the cookie and the browser's other headers stay here.
    static let forwardedRequestHeaders = ["content-type", "accept"]
    /// Response headers that describe the daemon's connection, not the answer.
    static let hopByHop: Set<String> = ["connection", "keep-alive", "transfer-encoding", "upgrade"]

    typealias Client = NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>

    func forward(
        _ head: HTTPRequestHead, body: ByteBuffer, to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async throws {
        let client: Client
        do {
            client = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(5))
                .connect(unixDomainSocketPath: socketPath) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        return try Client(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            let reason = "simplylockd does not answer on \(socketPath) (\(error)): is it running?"
            return try await Responses.error(status: 502, reason: reason, json: true, to: outbound)
        }
        try await client.executeThenClose { inbound, daemon in
            var request = HTTPRequestHead(version: .http1_1, method: head.method, uri: head.uri)
            request.headers.add(name: "Host", value: "localhost")
            request.headers.add(name: "User-Agent", value: "simplylock-ui")
            request.headers.add(name: "Connection", value: "close")
            for name in Self.forwardedRequestHeaders {
                for value in head.headers[canonicalForm: name] { request.headers.add(name: name, value: String(value)) }
            }
            if body.readableBytes > 0 || ![.GET, .HEAD, .DELETE].contains(head.method) {
                request.headers.add(name: "Content-Length", value: String(body.readableBytes))
            }
            try await daemon.write(.head(request))
            if body.readableBytes > 0 { try await daemon.write(.body(.byteBuffer(body))) }
            try await daemon.write(.end(nil))
            var answered = false
            for try await part in inbound {
                switch part {
                case .head(let response):
                    var headers = Responses.securityHeaders()
                    for (name, value) in response.headers where !Self.hopByHop.contains(name.lowercased()) {
                        if name.lowercased() == "cache-control" { continue }
                        headers.add(name: name, value: value)
                    }
                    answered = true
                    try await outbound.write(.head(HTTPResponseHead(version: .http1_1, status: response.status, headers: headers)))
                case .body(let chunk):
                    try await outbound.write(.body(.byteBuffer(chunk)))
                case .end(let trailers):
                    try await outbound.write(.end(trailers))
                    return
                }
            }
            if !answered {
                try await Responses.error(
                    status: 502, reason: "simplylockd closed the connection without an answer", json: true, to: outbound)
            } else {
                // The daemon went away in the middle of an answer: the page must not take half of it as whole.
                throw ChannelError.eof
            }
        }
    }
}
