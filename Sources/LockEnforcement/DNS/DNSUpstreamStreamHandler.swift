import NIOCore

/// Receives the one answer of a TCP query to an upstream server and completes `promise` with it
/// (or with an error when the connection ends first).
final class DNSUpstreamStreamHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let promise: EventLoopPromise<ByteBuffer>

    init(promise: EventLoopPromise<ByteBuffer>) { self.promise = promise }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        promise.succeed(Self.unwrapInboundIn(data))
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(DNSForwarderError(message: "the upstream server closed the TCP connection without an answer"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.close(promise: nil)
    }
}
