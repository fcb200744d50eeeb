import Foundation
import LockProtocol
import NIOCore
import NIOHTTP1
import NIOPosix

/// One HTTP/1.1 exchange over a Unix socket, with NIO's HTTP codec.
struct UnixHTTPTransport: Sendable {
    let socketPath: String

    typealias Connection = NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>

    /// Sends a request and collects the whole response.
    func send(method: HTTPMethod, path: String, body: [UInt8]?) async throws(ClientError) -> (status: Int, body: [UInt8]) {
        let connection = try await connect()
        do {
            return try await connection.executeThenClose { inbound, outbound in
                try await writeRequest(method: method, path: path, body: body, to: outbound)
                var status = 0
                var collected: [UInt8] = []
                for try await part in inbound {
                    switch part {
                    case .head(let head): status = Int(head.status.code)
                    case .body(let buffer): collected += buffer.readableBytesView
                    case .end: return (status, collected)
                    }
                }
                throw ClientError.protocolError("connection closed before the response was complete")
            }
        } catch let error as ClientError {
            throw error
        } catch {
            throw .protocolError("\(error)")
        }
    }

    /// Sends a request whose response body is a stream of lines, and hands each line over as
    /// it arrives. Returns when the daemon ends the stream.
    func stream(path: String, onStatus: (Int, [UInt8]) throws -> Void, onLine: ([UInt8]) throws -> Void) async throws {
        let connection = try await connect()
        try await connection.executeThenClose { inbound, outbound in
            try await writeRequest(method: .GET, path: path, body: nil, to: outbound)
            var status = 0
            var pending: [UInt8] = []
            for try await part in inbound {
                switch part {
                case .head(let head): status = Int(head.status.code)
                case .body(let buffer):
                    pending += buffer.readableBytesView
                    if status != 200 { continue }
                    while let newline = pending.firstIndex(of: 10) {
                        let line = Array(pending[..<newline])
                        pending.removeSubrange(...newline)
                        if !line.isEmpty { try onLine(line) }
                    }
                case .end:
                    if status != 200 { try onStatus(status, pending) }
                    return
                }
            }
        }
    }

    private func connect() async throws(ClientError) -> Connection {
        do {
            return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(unixDomainSocketPath: socketPath) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        return try Connection(wrappingChannelSynchronously: channel)
                    }
                }
        } catch let error as IOError {
            throw .unreachable(socket: socketPath, reason: String(cString: strerror(error.errnoCode)))
        } catch {
            throw .unreachable(socket: socketPath, reason: "\(error)")
        }
    }

    private func writeRequest(method: HTTPMethod, path: String, body: [UInt8]?,
                              to outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>) async throws {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: "localhost")
        headers.add(name: "User-Agent", value: "lockctl/\(API.softwareVersion)")
        headers.add(name: "Connection", value: "close")
        if let body {
            headers.add(name: "Content-Type", value: "application/json")
            headers.add(name: "Content-Length", value: "\(body.count)")
        }
        try await outbound.write(.head(HTTPRequestHead(version: .http1_1, method: method, uri: path, headers: headers)))
        if let body { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
        try await outbound.write(.end(nil))
    }
}
