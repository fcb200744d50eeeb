import LockProtocol
import NIOCore
import NIOHTTP1

/// Reads one connection's requests. NIO's decoder has parsed them; this admits each from its
/// head through the router (matched and authorised there, once), keeps its body within the
/// route's limit, and hands the server either a request ready to answer or the answer to give
/// without reading further.
final class RequestReader {
    /// What the server does next.
    enum Next {
        /// Answer this and read no more: the head was refused, or the body outgrew its limit.
        case refuse(HTTPRequestHead, APIResponse)
        /// Answer `request` on `route`. A streamed body is read by the handler, from this reader.
        case answer(HTTPRequestHead, Router.Route, APIRequest)
    }

    private let parts: InboundParts
    private let router: Router
    private let peer: PeerCredentials
    /// Called when a handler starts reading a body as it arrives: a large upload outlasts the
    /// request deadline, so each piece gives the sender more time.
    private let uploading: () -> Void

    init(
        _ inbound: NIOAsyncChannelInboundStream<HTTPServerRequestPart>, router: Router, peer: PeerCredentials,
        uploading: @escaping () -> Void
    ) {
        self.parts = InboundParts(inbound.makeAsyncIterator())
        self.router = router
        self.peer = peer
        self.uploading = uploading
    }

    /// The next request, or nil when the client closed the connection.
    func next() async throws -> Next? {
        var pending: (head: HTTPRequestHead, route: Router.Route)?
        var body: [UInt8] = []
        while let part = try await parts.next() {
            switch part {
            case .head(let head):
                var request = APIRequest(methodName: head.method.rawValue, uri: head.uri, peer: peer)
                switch router.admit(request) {
                case .reject(let response):
                    // Answered from the head alone; the body is never kept.
                    return .refuse(head, response)
                case .accept(let route) where route.streamsBody:
                    uploading()
                    let parts = self.parts
                    request.bodyStream = RequestBodyStream(limit: route.maxBody) { try await parts.nextBody() }
                    return .answer(head, route, request)
                case .accept(let route):
                    pending = (head, route)
                    body.removeAll(keepingCapacity: false)
                }
            case .body(let buffer):
                guard let (head, route) = pending else { continue }
                guard body.count + buffer.readableBytes <= route.maxBody else {
                    return .refuse(head, Router.error(APIError(.tooLarge, "request body larger than \(route.maxBody) bytes")))
                }
                body += buffer.readableBytesView
            case .end:
                guard let (head, route) = pending else { continue }
                return .answer(head, route, APIRequest(methodName: head.method.rawValue, uri: head.uri, body: body, peer: peer))
            }
        }
        return nil
    }

    /// Reads and drops the rest of the input until the client hangs up: after the last answer,
    /// closing at once could cut that answer while it still waits in NIO's buffers.
    func drain() async throws {
        while try await parts.next() != nil {}
    }
}

/// The parts of one connection's requests, shared by the reader and the body of a streamed
/// request (which the handler reads from the same place, in the same task).
final class InboundParts {
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
