import Foundation
import LockProtocol
import NIOCore
import NIOHTTP1

/// Writes one connection's answers: a JSON answer with its headers, or the event stream.
struct ResponseWriter {
    let outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>

    /// Writes a JSON answer to `request` (HEAD gets the headers GET would, and no body).
    func write(_ response: APIResponse, for request: HTTPRequestHead, keepAlive: Bool) async throws {
        guard case .json(let status, let body, let extra) = response else { return }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: "\(body.count)")
        headers.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        for (name, value) in extra { headers.add(name: name, value: value) }
        let version: HTTPVersion = request.version.minor == 0 ? .http1_0 : .http1_1
        try await outbound.write(.head(HTTPResponseHead(version: version, status: .init(statusCode: status), headers: headers)))
        if request.method != .HEAD { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
        try await outbound.write(.end(nil))
    }

    /// Streams events, one JSON object a line, until the client goes away or the daemon stops
    /// (the bus then sends a last event and ends every stream).
    func streamEvents(_ stream: AsyncStream<DaemonEvent>, peerGone: AsyncStream<Void>) async throws {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/x-ndjson")
        headers.add(name: "Cache-Control", value: "no-cache")
        headers.add(name: "Connection", value: "close")
        try await outbound.write(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers)))
        let encoder = API.makeEncoder()
        let hello = Event(type: .hello, at: Date(), message: "subscribed to simplylockd events")
        try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: Array(try encoder.encode(hello)) + [10]))))
        let outbound = self.outbound
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
    }

    /// Closes the writing half: no more answers on this connection.
    func finish() { outbound.finish() }
}
